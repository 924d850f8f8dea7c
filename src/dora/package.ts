/**
 * The xBRL-CSV report package of a validated register (EBA filing rules; README §2):
 *
 *   <NAME>.zip
 *   └── <NAME>/
 *       ├── META-INF/reportPackage.json
 *       └── reports/report.json, parameters.csv, FilingIndicators.csv, b_01.01.csv … b_99.01.csv
 *
 * NAME = `<LEI>.<CON|IND>_<country>_DORA010100_DORA_<refPeriod>_<YYYYMMDDhhmmssfff>`. Pure: the
 * caller validates the register first and writes the files.
 */
import { stringify } from "csv-stringify/sync"
import { zipSync } from "fflate"
import type { DoraRegister } from "../domain/Compliance.js"
import type { Templates } from "./templates.js"
import { countryPrefix } from "./validate.js"

export interface PackageFile {
  /** Path inside the package's root folder, `/`-separated. */
  readonly path: string
  readonly content: string
}

export interface DoraPackage {
  /** The root folder's name (and the zip's, without `.zip`). */
  readonly name: string
  readonly files: ReadonlyArray<PackageFile>
  readonly parameters: ReadonlyArray<readonly [string, string]>
}

export interface PackageOptions {
  readonly refPeriod: string
  readonly level: "CON" | "IND"
  readonly createdAt: Date
}

/** `YYYYMMDDhhmmssfff` (UTC), the creation timestamp of the file name. */
export const creationTimestamp = (d: Date): string => d.toISOString().replace(/[-:TZ.]/g, "").slice(0, 17)

/** Matches a package name (README §2.6), without the `.zip`. */
export const packageNamePattern = /^[A-Z0-9]{20}\.(CON|IND)_[A-Z]{2}_[A-Z]+\d{6}_[A-Z]+_\d{4}-\d{2}-\d{2}_\d{17}$/

const csv = (rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  stringify(rows.map((r) => [...r]), { record_delimiter: "unix" })

/** Builds every file of the package. The register must validate (entity row, country, base currency present). */
export const buildPackage = (register: DoraRegister, templates: Templates, options: PackageOptions): DoraPackage => {
  const entity = register.tables.find((t) => t.code === "B_01.01")?.rows[0]
  const lei = entity?.cells["c0010"]
  const country = entity?.cells["c0030"]?.replace(countryPrefix, "")
  const baseCurrency = register.parameters?.baseCurrency
  if (lei === undefined || country === undefined || baseCurrency === undefined || baseCurrency === null) {
    throw new Error("buildPackage needs a validated register (B_01.01 row with LEI and country, and a base currency)")
  }
  const tax = templates.taxonomy
  const name =
    `${lei}.${options.level}_${country}_${tax.file_name_framework_module_version}_${tax.file_name_module}_${options.refPeriod}_${
      creationTimestamp(options.createdAt)
    }`
  const parameters: ReadonlyArray<readonly [string, string]> = [
    ["entityID", `rs:${lei}.${options.level}`],
    ["refPeriod", options.refPeriod],
    ["baseCurrency", baseCurrency],
    ["decimalsInteger", "0"],
    ["decimalsMonetary", "-3"]
  ]
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`
  const files: Array<PackageFile> = [
    {
      path: "META-INF/reportPackage.json",
      content: json({ documentInfo: { documentType: "https://xbrl.org/report-package/2023" } })
    },
    {
      path: "reports/report.json",
      content: json({
        documentInfo: { documentType: "https://xbrl.org/2021/xbrl-csv", extends: [tax.entry_point_json] }
      })
    },
    { path: "reports/parameters.csv", content: csv([["name", "value"], ...parameters]) },
    {
      path: "reports/FilingIndicators.csv",
      content: csv([["templateID", "reported"], ...templates.tables.map((t) => [t.code, "true"])])
    }
  ]
  for (const t of templates.tables) {
    const header = t.columns.map((c) => c.code)
    const rows = register.tables.find((x) => x.code === t.code)?.rows ?? []
    files.push({
      path: `reports/${t.csv_file}`,
      content: csv([header, ...rows.map((r) => header.map((c) => r.cells[c] ?? ""))])
    })
  }
  return { name, files, parameters }
}

/** The package as a zip whose single root folder is named like the zip (UTF-8, no BOM). */
export const zipPackage = (pkg: DoraPackage, createdAt: Date): Uint8Array => {
  const enc = new TextEncoder()
  const tree: Record<string, Record<string, Uint8Array>> = {}
  for (const f of pkg.files) {
    const [dir, file] = f.path.split("/") as [string, string]
    tree[dir] = { ...(tree[dir] ?? {}), [file]: enc.encode(f.content) }
  }
  return zipSync({ [pkg.name]: tree }, { level: 6, mtime: createdAt })
}
