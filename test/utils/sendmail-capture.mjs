// A stand-in for sendmail, used as CATALOG_SENDMAIL_CMD in tests:
//   node test/utils/sendmail-capture.mjs <dir>
// reads the whole message on stdin and writes it to <dir>/<n>.eml (n = 1, 2, …, the next free number, written
// to a temporary name and renamed, so a reader never sees half a message), plus <dir>/<n>.json with the
// arguments, CATALOG_MAIL_TO and which of the portal's secret variables it could see (none, it should). Told to fail, it still reads stdin, then:
//   CAPTURE_EXIT=<code>   writes CAPTURE_STDERR (default "capture: refused") to stderr and exits <code>
//   CAPTURE_SLEEP_MS=<ms> waits that long before saving (to test the portal's timeout)
//   CAPTURE_ECHO=1        echoes the message to stderr before failing (to test that it is never reported)
import { Buffer } from "node:buffer"
import fs from "node:fs"
import path from "node:path"
import process from "node:process"
import { setTimeout } from "node:timers"

const dir = process.argv[2]
if (dir === undefined || dir === "") {
  process.stderr.write("usage: sendmail-capture.mjs <dir>\n")
  process.exit(64)
}

const chunks = []
process.stdin.on("data", (c) => chunks.push(c))
process.stdin.on("end", () => {
  const message = Buffer.concat(chunks)
  const exitCode = Number(process.env.CAPTURE_EXIT ?? "0")
  const sleep = Number(process.env.CAPTURE_SLEEP_MS ?? "0")
  const done = () => {
    if (exitCode !== 0) {
      if (process.env.CAPTURE_ECHO === "1") process.stderr.write(message)
      process.stderr.write(`${process.env.CAPTURE_STDERR ?? "capture: refused"}\n`)
      process.exit(exitCode)
    }
    fs.mkdirSync(dir, { recursive: true })
    let n = 1
    while (fs.existsSync(path.join(dir, `${n}.eml`))) n++
    const tmp = path.join(dir, `.${n}.${process.pid}.tmp`)
    fs.writeFileSync(tmp, message)
    fs.writeFileSync(
      path.join(dir, `${n}.json`),
      JSON.stringify({
        argv: process.argv.slice(3),
        mailTo: process.env.CATALOG_MAIL_TO ?? null,
        secretsVisible: ["CATALOG_POSTMARK_TOKEN", "CATALOG_INGEST_TOKEN", "CATALOG_PORTAL_DATABASE_URL"].filter(
          (name) => process.env[name] !== undefined
        )
      })
    )
    fs.renameSync(tmp, path.join(dir, `${n}.eml`))
    process.exit(0)
  }
  if (sleep > 0) setTimeout(done, sleep)
  else done()
})
