import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { classifySource, judgeSource, tokensOf } from "../../src/classifier/engine.js"
import { createTokenizer, fold, splitRaw } from "../../src/classifier/tokenize.js"
import type { ClassValue, ColumnVerdict, RawColumn, RawDataset } from "../../src/domain/Metadata.js"
import { ClassifierLive } from "../../src/layers/ClassifierLive.js"
import { Classifier } from "../../src/services/Classifier.js"

// ---------------------------------------------------------------------------------------------
// Helpers: a column is "name type" with optional flags: "pk", "fk:table.column", "comment:…".
// ---------------------------------------------------------------------------------------------

const col = (spec: string, position: number, schema: string): RawColumn => {
  const [head, ...flags] = spec.split(" | ")
  const space = head!.indexOf(" ")
  const name = space < 0 ? head! : head!.slice(0, space)
  const type = space < 0 ? "text" : head!.slice(space + 1)
  let isPrimaryKey = false
  let references: RawColumn["references"] = null
  let comment: string | null = null
  for (const f of flags) {
    if (f === "pk") isPrimaryKey = true
    else if (f.startsWith("fk:")) {
      const [table, column] = f.slice(3).split(".")
      references = { schema, table: table!, column: column ?? "id" }
    } else if (f.startsWith("comment:")) comment = f.slice(8)
  }
  return { name, type, nullable: true, position, comment, isPrimaryKey, references }
}

const table = (name: string, columns: ReadonlyArray<string>, schema = "public"): RawDataset => ({
  schema,
  name,
  kind: "table",
  comment: null,
  rowEstimate: null,
  rowEstimateSource: "none",
  columns: columns.map((c, i) => col(c, i + 1, schema)),
  dependsOn: []
})

/**
 * Judge a source by the rules and look verdicts up by `table.column`. These tests pin the rules; what the
 * second stage adds on top of them is tested in model.test.ts.
 */
const run = (datasets: ReadonlyArray<RawDataset>): (key: string) => ColumnVerdict => {
  const verdicts = judgeSource(datasets)
  const index = new Map<string, ColumnVerdict>()
  datasets.forEach((ds, i) => ds.columns.forEach((c, j) => index.set(`${ds.name}.${c.name}`, verdicts[i]![j]!)))
  return (key) => {
    const v = index.get(key)
    if (v === undefined) throw new Error(`no column ${key}`)
    return v
  }
}

const expectClass = (v: ColumnVerdict, value: ClassValue, key: string): void => {
  expect({ key, value: v.value, rule: v.rule }).toMatchObject({ key, value })
}

/** Assert many columns at once: { "users.email": "personal", … }. */
const expectAll = (get: (key: string) => ColumnVerdict, expected: Record<string, ClassValue>): void => {
  const wrong: Array<string> = []
  for (const [key, value] of Object.entries(expected)) {
    const v = get(key)
    if (v.value !== value) wrong.push(`${key}: expected ${value}, got ${v.value} (${v.rule})`)
  }
  expect(wrong).toEqual([])
}

// ---------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------

describe("tokenize", () => {
  it("splits snake, kebab, camel, Pascal, acronyms and digits", () => {
    expect(splitRaw("first_name")).toEqual(["first", "name"])
    expect(splitRaw("first-name")).toEqual(["first", "name"])
    expect(splitRaw("firstName")).toEqual(["first", "name"])
    expect(splitRaw("FirstName")).toEqual(["first", "name"])
    expect(splitRaw("IPAddress")).toEqual(["ip", "address"])
    expect(splitRaw("address2")).toEqual(["address", "2"])
    expect(splitRaw("addresses.line1")).toEqual(["addresses", "line", "1"])
    expect(splitRaw("zip code")).toEqual(["zip", "code"])
  })

  it("folds accents and ß", () => {
    expect(fold("Prénom")).toBe("prenom")
    expect(fold("Straße")).toBe("strasse")
    expect(fold("Größe")).toBe("grosse")
    expect(fold("Nacionalidade")).toBe("nacionalidade")
  })

  it("expands abbreviations", () => {
    expect(tokensOf("fname")).toEqual(["first", "name"])
    expect(tokensOf("dob")).toEqual(["date", "birth"])
    expect(tokensOf("ip_addr")).toEqual(["ip", "address"])
    expect(tokensOf("cust_no")).toEqual(["customer", "no"])
  })

  it("splits glued compounds against the vocabulary, whole words only", () => {
    expect(tokensOf("emailaddress")).toEqual(["email", "address"])
    expect(tokensOf("customerid")).toEqual(["customer", "id"])
    expect(tokensOf("mobilenumber")).toEqual(["mobile", "number"])
    expect(tokensOf("createdate")).toEqual(["create", "date"])
    expect(tokensOf("homeaddress")).toEqual(["home", "address"])
    // whole known words are never split: passport is not pass + port
    expect(tokensOf("passport")).toEqual(["passport"])
    expect(tokensOf("statement")).toEqual(["statement"])
  })

  it("splits German compounds with a linking s against its own lexicon", () => {
    const t = createTokenizer({
      words: new Set(["geburt", "datum", "name", "vor"]),
      shortParts: new Set(),
      noParts: new Set(),
      abbreviations: new Map(),
      stopwords: new Set()
    })
    expect(t.splitCompound("geburtsdatum")).toEqual(["geburt", "datum"])
    expect(t.splitCompound("vorname")).toEqual(["vor", "name"])
    expect(t.splitCompound("statement")).toBeNull()
  })
})

// ---------------------------------------------------------------------------------------------
// The examples quoted in the issue
// ---------------------------------------------------------------------------------------------

describe("issue examples", () => {
  it("passport is not a password", () => {
    const get = run([
      table("users", ["id integer | pk", "passport varchar(20)", "password varchar(60)", "passport_number varchar(20)"])
    ])
    expect(get("users.passport")).toMatchObject({ value: "personal", category: "identifier.passport" })
    expect(get("users.passport_number")).toMatchObject({ value: "personal", category: "identifier.passport" })
    expect(get("users.password")).toMatchObject({ value: "personal", category: "credential.password" })
  })

  it("statement is not a state", () => {
    const get = run([
      table("customers", ["id integer | pk", "first_name text", "statement text", "state varchar(2)"]),
      table("invoices", ["id integer | pk", "statement_descriptor text", "total numeric"])
    ])
    expect(get("customers.state")).toMatchObject({ value: "personal", category: "contact.region" })
    expect(get("customers.statement").category).not.toBe("contact.region")
    expectClass(get("invoices.statement_descriptor"), "not", "invoices.statement_descriptor")
  })

  it("email_count int is not an email; an integer cannot hold an email", () => {
    const get = run([
      table("newsletters", ["id integer | pk", "email_count int", "subject text"]),
      table("users", ["id integer | pk", "email varchar(255)", "email_count int", "backup_email integer"])
    ])
    expectClass(get("newsletters.email_count"), "not", "newsletters.email_count")
    expect(get("users.email_count").category).not.toBe("contact.email")
    expect(get("users.email")).toMatchObject({ value: "personal", category: "contact.email" })
    expect(get("users.backup_email")).toMatchObject({ value: "not", rule: "type-veto:integer" })
  })

  it("address in ip_address is an IP, not a postal address; inet is an IP address", () => {
    const get = run([
      table("audit_events", [
        "id bigint | pk",
        "ip_address varchar(45)",
        "remote_addr inet",
        "client inet",
        "action text"
      ])
    ])
    expect(get("audit_events.ip_address")).toMatchObject({ value: "personal", category: "online.ip" })
    expect(get("audit_events.remote_addr")).toMatchObject({ value: "personal", category: "online.ip" })
    expect(get("audit_events.client")).toMatchObject({ value: "personal", category: "online.ip" })
  })

  it("email verification flags are not e-mail addresses", () => {
    const get = run([
      table("users", [
        "id integer | pk",
        "email text",
        "is_email_verified boolean",
        "email_verified boolean",
        "email_verified_at timestamp"
      ])
    ])
    expectClass(get("users.is_email_verified"), "not", "is_email_verified")
    expectClass(get("users.email_verified"), "not", "email_verified")
    expectClass(get("users.email_verified_at"), "not", "email_verified_at")
  })

  it("created_at is not personal; last_login_at on a users table is behaviour", () => {
    const get = run([
      table("users", [
        "id integer | pk",
        "email text",
        "created_at timestamp",
        "updated_at timestamp",
        "last_login_at timestamp"
      ])
    ])
    expectClass(get("users.created_at"), "not", "created_at")
    expectClass(get("users.updated_at"), "not", "updated_at")
    expect(get("users.last_login_at")).toMatchObject({ value: "personal", category: "behaviour.login" })
  })

  it("a patients table makes diagnosis special", () => {
    const get = run([
      table("patients", ["id integer | pk", "full_name text", "diagnosis text", "blood_type varchar(3)"])
    ])
    expect(get("patients.diagnosis")).toMatchObject({ value: "special", category: "health.diagnosis" })
    expect(get("patients.blood_type").value).toBe("special")
  })

  it("conditions, screenings and treatments are health data in several languages", () => {
    const get = run([
      table("pacientes", [
        "id integer | pk",
        "nombre text",
        "epilepsia text",
        "trastornos_ansiedad text",
        "ultima_mamografia text"
      ]),
      table("members", ["id integer | pk", "first_name text", "vaccination_status text", "dementia_notes text"])
    ])
    expectAll(get, {
      "pacientes.epilepsia": "special",
      "pacientes.trastornos_ansiedad": "special",
      "pacientes.ultima_mamografia": "special",
      "members.vaccination_status": "special",
      "members.dementia_notes": "special",
      "pacientes.nombre": "personal"
    })
  })

  it("users.name is personal, products.name is not", () => {
    const get = run([
      table("users", ["id integer | pk", "name text", "email text"]),
      table("products", ["id integer | pk", "name text", "price numeric"])
    ])
    expect(get("users.name")).toMatchObject({ value: "personal", category: "identity.name" })
    expectClass(get("products.name"), "not", "products.name")
    expectClass(get("products.price"), "not", "products.price")
  })

  it("first name + birth date + address in one table raise the whole table", () => {
    const get = run([
      table("registrations", [
        "reg_id integer | pk",
        "first_name text",
        "birth_date date",
        "street text",
        "city text",
        "name text",
        "notes text"
      ])
    ])
    expectAll(get, {
      "registrations.reg_id": "personal",
      "registrations.city": "personal",
      "registrations.name": "personal",
      "registrations.notes": "personal"
    })
  })

  it("foreign keys to tables about people are personal; keys of other records are not", () => {
    const get = run([
      table("members", ["member_id integer | pk", "email text"]),
      table("bookings", [
        "booking_id integer | pk",
        "member_id integer | fk:members.member_id",
        "room_id integer | fk:rooms.room_id",
        "amount numeric"
      ]),
      table("rooms", ["room_id integer | pk", "name text", "floor integer"])
    ])
    expect(get("bookings.member_id")).toMatchObject({
      value: "personal",
      rule: "fk:person-table",
      method: "foreign-key"
    })
    expectClass(get("bookings.room_id"), "not", "bookings.room_id")
    expectClass(get("bookings.booking_id"), "not", "bookings.booking_id")
    expectClass(get("bookings.amount"), "not", "transactional amount")
    expect(get("members.member_id")).toMatchObject({ value: "personal", rule: "pk:person-table" })
    expectClass(get("rooms.name"), "not", "rooms.name")
  })

  it("author and editor ids are personal", () => {
    const get = run([
      table("documents", [
        "id integer | pk",
        "title text",
        "created_by integer",
        "changed_by integer",
        "creator text",
        "last_update_by integer",
        "owner_id integer",
        "erstellt_von integer",
        "modifie_par integer"
      ])
    ])
    for (
      const c of ["created_by", "changed_by", "creator", "last_update_by", "owner_id", "erstellt_von", "modifie_par"]
    ) {
      expect(get(`documents.${c}`)).toMatchObject({ value: "personal", category: "identifier.author" })
    }
    expectClass(get("documents.title"), "not", "documents.title")
  })

  it("column comments are weaker evidence", () => {
    const get = run([
      table("events", [
        "id integer | pk",
        "c7 varchar(100) | comment:The attendee's email address",
        "c8 varchar(10) | comment:Number of emails sent"
      ])
    ])
    expect(get("events.c7")).toMatchObject({ value: "personal", method: "comment", category: "contact.email" })
    expect(get("events.c7").confidence).toBeLessThan(0.9)
    expectClass(get("events.c8"), "not", "events.c8")
  })

  it("every verdict carries rule, confidence, method, category and evidence", () => {
    const get = run([table("users", ["id integer | pk", "email text", "status text"])])
    for (const key of ["users.id", "users.email", "users.status"]) {
      const v = get(key)
      expect(v.rule.length).toBeGreaterThan(0)
      expect(v.confidence).toBeGreaterThan(0)
      expect(v.confidence).toBeLessThanOrEqual(1)
      expect([
        "name-token",
        "name-phrase",
        "sql-type",
        "table-context",
        "foreign-key",
        "primary-key",
        "comment",
        "co-occurrence",
        "default"
      ]).toContain(v.method)
      expect(v.evidence.length).toBeGreaterThan(0)
      expect(v.category === null).toBe(v.value === "not")
    }
    expect(get("users.status")).toMatchObject({ value: "not", rule: "default:not" })
    // Calibrated on the labelled corpus: an e-mail column is right far more often than a default `not`.
    expect(get("users.email").confidence).toBeGreaterThanOrEqual(0.85)
  })
})

// ---------------------------------------------------------------------------------------------
// Vetoes, markers, types
// ---------------------------------------------------------------------------------------------

describe("vetoes and markers", () => {
  it("negative markers: counts, flags, types, templates", () => {
    const get = run([
      table("customers", [
        "id integer | pk",
        "email text",
        "phone_type varchar(10)",
        "email_template text",
        "has_phone boolean",
        "num_addresses integer",
        "address_verified boolean",
        "phone_count integer"
      ])
    ])
    for (const c of ["phone_type", "email_template", "has_phone", "num_addresses", "address_verified", "phone_count"]) {
      expectClass(get(`customers.${c}`), "not", c)
    }
  })

  it("boolean, integer and numeric types veto names and free text", () => {
    const get = run([
      table("people", [
        "id integer | pk",
        "first_name text",
        "last_name text",
        "nickname boolean",
        "notes integer",
        "bio numeric"
      ])
    ])
    expectClass(get("people.nickname"), "not", "nickname boolean")
    expectClass(get("people.notes"), "not", "notes integer")
    expectClass(get("people.bio"), "not", "bio numeric")
  })

  it("bytea with a photo token in a person table is a photo; geometry at a person's address is a location", () => {
    const get = run([
      table("staff", [
        "staff_id integer | pk",
        "first_name text",
        "picture bytea",
        "home_location geometry(Point,4326)"
      ]),
      table("warehouses", ["id integer | pk", "name text", "location geometry(Point,4326)"])
    ])
    expect(get("staff.picture")).toMatchObject({ value: "personal", category: "identity.photo" })
    expect(get("staff.home_location").value).toBe("personal")
    expectClass(get("warehouses.location"), "not", "warehouses.location")
    expectClass(get("warehouses.name"), "not", "warehouses.name")
  })

  it("birth dates are personal in any date type, including year/month parts as integers", () => {
    const get = run([
      table("person", [
        "person_id integer | pk",
        "year_of_birth integer",
        "month_of_birth integer",
        "birth_datetime timestamp",
        "dob date"
      ])
    ])
    for (const c of ["year_of_birth", "month_of_birth", "birth_datetime", "dob"]) {
      expect(get(`person.${c}`).category).toBe("identity.birth_date")
    }
  })
})

// ---------------------------------------------------------------------------------------------
// Context: organisations, lookups, clinical, criminal, sensitive categories
// ---------------------------------------------------------------------------------------------

describe("table context", () => {
  it("organisations: their address and phone are not personal; contact persons are", () => {
    const get = run([
      table("suppliers", [
        "supplier_id integer | pk",
        "company_name text",
        "contact_name text",
        "contact_title text",
        "address text",
        "city text",
        "phone text",
        "homepage text"
      ])
    ])
    expectAll(get, {
      "suppliers.supplier_id": "not",
      "suppliers.company_name": "not",
      "suppliers.contact_name": "personal",
      "suppliers.contact_title": "personal",
      "suppliers.address": "not",
      "suppliers.city": "not",
      "suppliers.phone": "not",
      "suppliers.homepage": "not"
    })
  })

  it("a sensitive category assigned to a person is special; the lookup listing the categories is not", () => {
    const get = run([
      table("ethnicities", ["ethnicity_id integer | pk", "name text", "description text"]),
      table("religions", ["id integer | pk", "religion text"]),
      table("employees", [
        "employee_id integer | pk",
        "first_name text",
        "ethnicity_id integer | fk:ethnicities.ethnicity_id",
        "religion_id integer | fk:religions.id",
        "trade_union_member boolean"
      ])
    ])
    expectAll(get, {
      "employees.ethnicity_id": "special",
      "employees.religion_id": "special",
      "employees.trade_union_member": "special",
      "ethnicities.ethnicity_id": "not",
      "ethnicities.name": "not",
      "religions.religion": "not"
    })
  })

  it("clinical tables: care categories and condition dates are special; keys of other records are not", () => {
    const get = run([
      table("patients", [
        "patient_id integer | pk",
        "mrn varchar(20)",
        "first_name text",
        "date_of_birth date",
        "sex char(1)"
      ]),
      table("encounters", [
        "encounter_id integer | pk",
        "patient_id integer | fk:patients.patient_id",
        "encounter_type varchar(20)",
        "care_setting varchar(20)",
        "admit_date date",
        "ward_id integer | fk:wards.ward_id",
        "attending_physician_id integer",
        "created_at timestamp"
      ]),
      table("conditions", [
        "condition_id integer | pk",
        "patient_id integer | fk:patients.patient_id",
        "encounter_id integer | fk:encounters.encounter_id",
        "icd10_code varchar(10)",
        "onset_date date",
        "last_episode_date date",
        "clinical_notes text"
      ]),
      table("wards", ["ward_id integer | pk", "name text", "floor integer"]),
      table("icd10_codes", ["code varchar(10) | pk", "description text", "chapter text"])
    ])
    expectAll(get, {
      "patients.patient_id": "personal",
      "patients.mrn": "personal",
      "patients.date_of_birth": "personal",
      "encounters.patient_id": "personal",
      "encounters.encounter_id": "not",
      "encounters.encounter_type": "special",
      "encounters.care_setting": "special",
      "encounters.admit_date": "special",
      "encounters.ward_id": "not",
      "encounters.attending_physician_id": "personal",
      "encounters.created_at": "not",
      "conditions.encounter_id": "not",
      "conditions.icd10_code": "special",
      "conditions.onset_date": "special",
      "conditions.last_episode_date": "special",
      "conditions.clinical_notes": "special",
      "wards.name": "not",
      "icd10_codes.code": "not",
      "icd10_codes.description": "not"
    })
  })

  it("criminal-justice tables: offences, convictions, sentences and custody identifiers are criminal", () => {
    const get = run([
      table("offenders", [
        "offender_id integer | pk",
        "crn varchar(7)",
        "pnc_number varchar(20)",
        "first_name text",
        "surname text",
        "date_of_birth date"
      ]),
      table("convictions", [
        "conviction_id integer | pk",
        "offender_id integer | fk:offenders.offender_id",
        "offence_code varchar(10)",
        "offence_description text",
        "conviction_date date",
        "plea varchar(10)",
        "verdict varchar(20)",
        "sentence_type varchar(20)",
        "sentence_length_months integer",
        "court_id integer | fk:courts.court_id",
        "created_at timestamp"
      ]),
      table("courts", ["court_id integer | pk", "name text", "address text", "phone text"])
    ])
    expectAll(get, {
      "offenders.offender_id": "personal",
      "offenders.crn": "criminal",
      "offenders.pnc_number": "criminal",
      "offenders.first_name": "personal",
      "convictions.offender_id": "personal",
      "convictions.offence_code": "criminal",
      "convictions.offence_description": "criminal",
      "convictions.conviction_date": "criminal",
      "convictions.plea": "criminal",
      "convictions.verdict": "criminal",
      "convictions.sentence_type": "criminal",
      "convictions.sentence_length_months": "criminal",
      "convictions.court_id": "not",
      "convictions.conviction_id": "not",
      "convictions.created_at": "not",
      "courts.name": "not",
      "courts.address": "not",
      "courts.phone": "not"
    })
  })

  it("lookup tables (countries, genders, categories) hold no person", () => {
    const get = run([
      table("countries", ["country_id integer | pk", "name text", "iso_code char(2)"]),
      table("genders", ["id integer | pk", "gender text"]),
      table("customer", [
        "customer_id integer | pk",
        "first_name text",
        "gender_id integer | fk:genders.id",
        "country_id integer | fk:countries.country_id"
      ])
    ])
    expectAll(get, {
      "countries.name": "not",
      "genders.gender": "not",
      "customer.gender_id": "personal"
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Multilingual schemas nobody here wrote (sanity checks of generalisation)
// ---------------------------------------------------------------------------------------------

describe("multilingual vocabularies", () => {
  it("German HR schema", () => {
    const get = run([
      table("mitarbeiter", [
        "personalnummer integer | pk",
        "vorname varchar(50)",
        "nachname varchar(50)",
        "geburtsdatum date",
        "geschlecht char(1)",
        "strasse varchar(100)",
        "hausnummer varchar(10)",
        "plz varchar(5)",
        "ort varchar(50)",
        "telefon varchar(30)",
        "email varchar(100)",
        "steuer_id varchar(11)",
        "sozialversicherungsnummer varchar(12)",
        "iban varchar(34)",
        "kirchensteuermerkmal varchar(2)",
        "gehalt numeric(10,2)",
        "eintrittsdatum date",
        "abteilung_id integer | fk:abteilungen.abteilung_id",
        "erstellt_am timestamp"
      ]),
      table("abteilungen", ["abteilung_id integer | pk", "bezeichnung varchar(50)", "standort varchar(50)"]),
      table("krankmeldungen", [
        "id integer | pk",
        "personalnummer integer | fk:mitarbeiter.personalnummer",
        "von date",
        "bis date",
        "diagnose text"
      ])
    ])
    expectAll(get, {
      "mitarbeiter.personalnummer": "personal",
      "mitarbeiter.vorname": "personal",
      "mitarbeiter.nachname": "personal",
      "mitarbeiter.geburtsdatum": "personal",
      "mitarbeiter.geschlecht": "personal",
      "mitarbeiter.strasse": "personal",
      "mitarbeiter.hausnummer": "personal",
      "mitarbeiter.plz": "personal",
      "mitarbeiter.ort": "personal",
      "mitarbeiter.telefon": "personal",
      "mitarbeiter.email": "personal",
      "mitarbeiter.steuer_id": "personal",
      "mitarbeiter.sozialversicherungsnummer": "personal",
      "mitarbeiter.iban": "personal",
      "mitarbeiter.kirchensteuermerkmal": "special",
      "mitarbeiter.gehalt": "personal",
      "mitarbeiter.eintrittsdatum": "personal",
      "mitarbeiter.abteilung_id": "not",
      "mitarbeiter.erstellt_am": "not",
      "abteilungen.bezeichnung": "not",
      "krankmeldungen.personalnummer": "personal",
      "krankmeldungen.diagnose": "special"
    })
  })

  it("French e-commerce schema", () => {
    const get = run([
      table("clients", [
        "id integer | pk",
        "prenom varchar(50)",
        "nom varchar(50)",
        "courriel varchar(100)",
        "telephone varchar(20)",
        "adresse text",
        "code_postal varchar(5)",
        "ville varchar(50)",
        "date_naissance date",
        "date_creation timestamp"
      ]),
      table("commandes", [
        "id integer | pk",
        "client_id integer | fk:clients.id",
        "date_commande timestamp",
        "montant_total numeric(10,2)",
        "adresse_livraison text",
        "statut varchar(20)"
      ]),
      table("produits", [
        "id integer | pk",
        "nom varchar(100)",
        "prix numeric(10,2)",
        "description text",
        "categorie_id integer"
      ])
    ])
    expectAll(get, {
      "clients.id": "personal",
      "clients.prenom": "personal",
      "clients.nom": "personal",
      "clients.courriel": "personal",
      "clients.telephone": "personal",
      "clients.adresse": "personal",
      "clients.code_postal": "personal",
      "clients.ville": "personal",
      "clients.date_naissance": "personal",
      "clients.date_creation": "not",
      "commandes.client_id": "personal",
      "commandes.date_commande": "not",
      "commandes.montant_total": "not",
      "commandes.adresse_livraison": "personal",
      "commandes.statut": "not",
      "produits.nom": "not",
      "produits.prix": "not",
      "produits.description": "not"
    })
  })

  it("Spanish, Dutch, Italian and Portuguese person tables", () => {
    const get = run([
      table("usuarios", [
        "id integer | pk",
        "nombre varchar(50)",
        "apellido varchar(50)",
        "correo varchar(100)",
        "fecha_nacimiento date",
        "dni varchar(9)",
        "telefono varchar(20)"
      ]),
      table("klanten", [
        "klant_id integer | pk",
        "voornaam varchar(50)",
        "achternaam varchar(50)",
        "geboortedatum date",
        "bsn varchar(9)",
        "woonplaats varchar(50)"
      ]),
      table("pazienti", [
        "id integer | pk",
        "nome varchar(50)",
        "cognome varchar(50)",
        "codice_fiscale varchar(16)",
        "data_nascita date",
        "diagnosi text"
      ]),
      table("funcionarios", [
        "id integer | pk",
        "nome varchar(50)",
        "sobrenome varchar(50)",
        "cpf varchar(11)",
        "data_nascimento date",
        "salario numeric(10,2)"
      ])
    ])
    expectAll(get, {
      "usuarios.nombre": "personal",
      "usuarios.apellido": "personal",
      "usuarios.correo": "personal",
      "usuarios.fecha_nacimiento": "personal",
      "usuarios.dni": "personal",
      "usuarios.telefono": "personal",
      "klanten.klant_id": "personal",
      "klanten.voornaam": "personal",
      "klanten.achternaam": "personal",
      "klanten.geboortedatum": "personal",
      "klanten.bsn": "personal",
      "klanten.woonplaats": "personal",
      "pazienti.cognome": "personal",
      "pazienti.codice_fiscale": "personal",
      "pazienti.data_nascita": "personal",
      "pazienti.diagnosi": "special",
      "funcionarios.sobrenome": "personal",
      "funcionarios.cpf": "personal",
      "funcionarios.data_nascimento": "personal",
      "funcionarios.salario": "personal"
    })
  })

  it("catalogue tables in other languages stay not; a German supplier's own address is not personal", () => {
    const get = run([
      table("produkte", [
        "id integer | pk",
        "name text",
        "beschreibung text",
        "preis numeric",
        "gewicht numeric",
        "kategorie text"
      ]),
      table("produits", ["id integer | pk", "nom text", "description text", "prix numeric", "poids numeric"]),
      table("productos", ["id integer | pk", "nombre text", "descripcion text", "precio numeric", "peso numeric"]),
      table("prodotti", ["id integer | pk", "nome text", "descrizione text", "prezzo numeric", "peso numeric"]),
      table("producten", ["id integer | pk", "naam text", "omschrijving text", "prijs numeric", "gewicht numeric"]),
      table("lieferanten", [
        "id integer | pk",
        "firma text",
        "ansprechpartner text",
        "strasse text",
        "plz text",
        "ort text",
        "telefon text"
      ])
    ])
    const wrong: Array<string> = []
    for (
      const [t, cols] of [
        ["produkte", ["name", "beschreibung", "gewicht"]],
        ["produits", ["nom", "description", "poids"]],
        ["productos", ["nombre", "descripcion", "peso"]],
        ["prodotti", ["nome", "descrizione", "peso"]],
        ["producten", ["naam", "omschrijving", "gewicht"]],
        ["lieferanten", ["firma", "strasse", "plz", "ort", "telefon"]]
      ] as const
    ) {
      for (const c of cols) if (get(`${t}.${c}`).value !== "not") wrong.push(`${t}.${c}`)
    }
    expect(wrong).toEqual([])
    expect(get("lieferanten.ansprechpartner").value).toBe("personal")
  })

  it("a table's tag glued to its column names is read without it (legacy abbreviated schemas)", () => {
    const get = run([
      table("rrhh_ficha", [
        "codfic char(4) | pk",
        "cedfic varchar(10)",
        "apefic varchar(60)",
        "fecnacfic date",
        "edocivfic varchar(1)",
        "obsfic text",
        "numhijfic integer"
      ]),
      table("inventario", ["codart char(8) | pk", "desart varchar(80)", "preart numeric", "exiart integer"])
    ])
    expectAll(get, {
      "rrhh_ficha.cedfic": "personal",
      "rrhh_ficha.apefic": "personal",
      "rrhh_ficha.fecnacfic": "personal",
      "rrhh_ficha.edocivfic": "personal",
      "inventario.desart": "not",
      "inventario.preart": "not"
    })
    // fewer than four names share the tag: nothing is cut
    expect(tokensOf("cedfic")).toEqual(["cedfic"])
  })

  it("Romance table names put the head first: a list of kinds of user is not a table of users", () => {
    const get = run([
      table("tipo_usuario", ["id integer | pk", "descripcion varchar(50)", "activo boolean"]),
      table("usuario", [
        "id integer | pk",
        "nombre varchar(50)",
        "correo varchar(100)",
        "tipo_usuario_id integer | fk:tipo_usuario.id"
      ])
    ])
    expectAll(get, {
      "tipo_usuario.id": "not",
      "tipo_usuario.descripcion": "not",
      "usuario.nombre": "personal",
      "usuario.tipo_usuario_id": "not"
    })
  })

  it("a name-based key points at the table named by its noun alone, not a longer table ending in it", () => {
    const get = run([
      table("app_stats_user", ["id integer | pk", "visits integer", "day date"]),
      table("app_user", ["id integer | pk", "firstname varchar(50)", "email varchar(100)"]),
      table("app_grades", ["id integer | pk", "userid integer", "grade numeric"])
    ])
    expect(get("app_grades.userid").value).toBe("personal")
  })

  it("a key named after a table found to hold people is a person key, whatever the schema's word for them", () => {
    const get = run([
      table("demographic", [
        "demographic_no integer | pk",
        "last_name varchar(30)",
        "first_name varchar(30)",
        "date_of_birth date",
        "sex char(1)"
      ]),
      table("consultation", ["id integer | pk", "demographicNo integer", "sendTo varchar(20)", "lookupNo integer"]),
      table("lookup", ["lookup_no integer | pk", "label varchar(40)"])
    ])
    expectAll(get, { "consultation.demographicNo": "personal", "consultation.lookupNo": "not" })
  })

  it("a tax code is a person's official identifier and a person's thumbnail is their photo", () => {
    const get = run([
      table("students", [
        "id integer | pk",
        "surname varchar(60)",
        "name varchar(60)",
        "tax_code character(16)",
        "thumbnail bytea"
      ]),
      table("absences_view", [
        "absence integer",
        "student_tax_code character(16)",
        "student_thumbnail bytea",
        "student integer | fk:students.id"
      ])
    ])
    expectAll(get, {
      "students.tax_code": "personal",
      "students.thumbnail": "personal",
      "absences_view.student_tax_code": "personal",
      "absences_view.student_thumbnail": "personal"
    })
  })

  it("a payment that spells out its debtor (debitore, a person noun) is not a table of people: the debtor's details, address included, are personal, the payment's are not", () => {
    const get = run([
      table("versamenti", [
        "id bigint | pk",
        "importo_totale double precision",
        "data_scadenza timestamp",
        "causale_versamento varchar(1024)",
        "anomalo boolean",
        "debitore_anagrafica varchar(70)",
        "debitore_email varchar(256)",
        "debitore_telefono varchar(35)",
        "debitore_indirizzo varchar(70)"
      ])
    ])
    expectAll(get, {
      "versamenti.id": "not",
      "versamenti.data_scadenza": "not",
      "versamenti.anomalo": "not",
      "versamenti.debitore_anagrafica": "personal",
      "versamenti.debitore_email": "personal",
      "versamenti.debitore_telefono": "personal",
      "versamenti.debitore_indirizzo": "personal"
    })
  })

  it("a clinical record's framework bookkeeping (row index, document status, naming series, amended-from) is not health data", () => {
    const get = run([
      table("patient", ["name varchar(140) | pk", "patient_name varchar(140)", "dob date", "sex varchar(10)"]),
      table("vital_signs", [
        "name varchar(140) | pk",
        "patient varchar(140) | fk:patient.name",
        "idx int",
        "docstatus int",
        "naming_series varchar(140)",
        "amended_from varchar(140)",
        "bp_systolic varchar(140)",
        "temperature varchar(140)"
      ])
    ])
    expectAll(get, {
      "vital_signs.idx": "not",
      "vital_signs.docstatus": "not",
      "vital_signs.naming_series": "not",
      "vital_signs.amended_from": "not",
      "vital_signs.temperature": "special"
    })
  })

  it("keys named after whoever revoked, closed or did something are people", () => {
    const get = run([
      table("users", ["id integer | pk", "name varchar(60)", "email varchar(100)"]),
      table("memberships", ["id integer | pk", "user_id integer", "revoker_id integer", "revoked_at timestamp"]),
      table("discussions", ["id integer | pk", "title varchar(255)", "closer_id integer", "discarded_by integer"])
    ])
    expectAll(get, {
      "memberships.revoker_id": "personal",
      "discussions.closer_id": "personal",
      "discussions.discarded_by": "personal"
    })
  })

  it("a list of people is a list: its key is the list's, not a person's", () => {
    const get = run([
      table("users", ["id integer | pk", "first_name varchar(60)", "last_name varchar(60)", "email varchar(100)"]),
      table("list_of_speakers", ["id integer | pk", "closed boolean", "sequential_number integer"]),
      table("speakers", [
        "id integer | pk",
        "list_of_speakers_id integer | fk:list_of_speakers.id",
        "user_id integer | fk:users.id"
      ])
    ])
    expectAll(get, {
      "list_of_speakers.id": "not",
      "list_of_speakers.closed": "not",
      "speakers.list_of_speakers_id": "not",
      "speakers.user_id": "personal"
    })
  })

  it("in OAuth tables a client is an application, not a customer; a person's tokens stay personal", () => {
    const get = run([
      table("users", ["id integer | pk", "name varchar(60)", "email varchar(100)", "password varchar(255)"]),
      table("clients", ["id integer | pk", "first_name varchar(60)", "last_name varchar(60)", "phone varchar(30)"]),
      table("oauth_clients", ["id integer | pk", "name varchar(255)", "redirect text", "revoked boolean"]),
      table("oauth_access_tokens", [
        "id varchar(100) | pk",
        "user_id integer | fk:users.id",
        "client_id integer",
        "revoked boolean"
      ]),
      table("invoices", ["id integer | pk", "client_id integer", "total numeric"])
    ])
    expectAll(get, {
      "oauth_clients.id": "not",
      "oauth_access_tokens.client_id": "not",
      "oauth_access_tokens.user_id": "personal",
      "invoices.client_id": "personal"
    })
  })

  it("sort-order and timestamp columns of a table of people are technical in several languages", () => {
    const get = run([
      table("mitglied", [
        "id integer | pk",
        "vorname varchar(40)",
        "nachname varchar(40)",
        "geburtsdatum date",
        "sortierung integer",
        "ordre integer",
        "tms timestamp"
      ])
    ])
    expectAll(get, {
      "mitglied.vorname": "personal",
      "mitglied.sortierung": "not",
      "mitglied.ordre": "not",
      "mitglied.tms": "not"
    })
  })

  it("camelCase and glued compounds", () => {
    const get = run([
      table("Customer", [
        "CustomerId int | pk",
        "FirstName nvarchar(50)",
        "LastName nvarchar(50)",
        "EmailAddress nvarchar(100)",
        "PhoneNumber nvarchar(20)",
        "BirthDate date",
        "ZipCode nvarchar(10)"
      ]),
      table("Order", ["OrderId int | pk", "customerid int", "OrderDate datetime", "TotalDue money"])
    ])
    expectAll(get, {
      "Customer.CustomerId": "personal",
      "Customer.FirstName": "personal",
      "Customer.EmailAddress": "personal",
      "Customer.PhoneNumber": "personal",
      "Customer.BirthDate": "personal",
      "Customer.ZipCode": "personal",
      "Order.customerid": "personal",
      "Order.OrderDate": "not",
      "Order.TotalDue": "not"
    })
  })
})

// ---------------------------------------------------------------------------------------------
// A SaaS application: sessions, tokens, audit logs, queues, config
// ---------------------------------------------------------------------------------------------

describe("SaaS application schema", () => {
  it("accounts, credentials, sessions and logs", () => {
    const get = run([
      table("users", [
        "id bigint | pk",
        "name varchar(255)",
        "email varchar(255)",
        "email_verified_at timestamp",
        "password varchar(255)",
        "remember_token varchar(100)",
        "two_factor_secret text",
        "two_factor_recovery_codes text",
        "last_login_at timestamp",
        "locale varchar(10)",
        "timezone varchar(50)",
        "is_admin boolean",
        "created_at timestamp",
        "updated_at timestamp"
      ]),
      table("sessions", [
        "id varchar(255) | pk",
        "user_id bigint | fk:users.id",
        "ip_address varchar(45)",
        "user_agent text",
        "payload text",
        "last_activity integer"
      ]),
      table("password_resets", ["email varchar(255)", "token varchar(255)", "created_at timestamp"]),
      table("audit_logs", [
        "id bigint | pk",
        "user_id bigint | fk:users.id",
        "action varchar(50)",
        "ip_address inet",
        "created_at timestamp"
      ]),
      table("jobs", [
        "id bigint | pk",
        "queue varchar(255)",
        "payload text",
        "attempts smallint",
        "reserved_at integer"
      ]),
      table("settings", ["key varchar(100) | pk", "value text"]),
      table("migrations", ["id integer | pk", "migration varchar(255)", "batch integer"]),
      table("plans", ["id integer | pk", "name text", "price_cents integer", "api_key_prefix text"])
    ])
    expectAll(get, {
      "users.id": "personal",
      "users.name": "personal",
      "users.email": "personal",
      "users.email_verified_at": "not",
      "users.password": "personal",
      "users.remember_token": "personal",
      "users.two_factor_secret": "personal",
      "users.two_factor_recovery_codes": "personal",
      "users.last_login_at": "personal",
      "users.locale": "personal",
      "users.timezone": "personal",
      "users.is_admin": "not",
      "users.created_at": "not",
      "sessions.id": "personal",
      "sessions.user_id": "personal",
      "sessions.ip_address": "personal",
      "sessions.user_agent": "personal",
      "sessions.payload": "personal",
      "password_resets.email": "personal",
      "password_resets.token": "personal",
      "audit_logs.user_id": "personal",
      "audit_logs.ip_address": "personal",
      "audit_logs.action": "not",
      "jobs.queue": "not",
      "jobs.payload": "not",
      "settings.value": "not",
      "migrations.migration": "not",
      "plans.name": "not",
      "plans.api_key_prefix": "not"
    })
  })
})

// ---------------------------------------------------------------------------------------------
// Shapes of well-known public schemas (written from their published DDL, not from the fixtures)
// ---------------------------------------------------------------------------------------------

describe("well-known application schemas", () => {
  it("WordPress: users, usermeta, posts, comments, options", () => {
    const get = run([
      table("wp_users", [
        "ID bigint | pk",
        "user_login varchar(60)",
        "user_pass varchar(255)",
        "user_email varchar(100)",
        "user_url varchar(100)",
        "user_registered datetime",
        "user_activation_key varchar(255)",
        "user_status int",
        "display_name varchar(250)"
      ]),
      table("wp_usermeta", ["umeta_id bigint | pk", "user_id bigint", "meta_key varchar(255)", "meta_value longtext"]),
      table("wp_posts", [
        "ID bigint | pk",
        "post_author bigint",
        "post_date datetime",
        "post_content longtext",
        "post_status varchar(20)",
        "comment_count bigint",
        "guid varchar(255)"
      ]),
      table("wp_comments", [
        "comment_ID bigint | pk",
        "comment_post_ID bigint",
        "comment_author tinytext",
        "comment_author_email varchar(100)",
        "comment_author_IP varchar(100)",
        "comment_date datetime",
        "comment_content text",
        "comment_approved varchar(20)",
        "user_id bigint"
      ]),
      table("wp_options", [
        "option_id bigint | pk",
        "option_name varchar(191)",
        "option_value longtext",
        "autoload varchar(20)"
      ])
    ])
    expectAll(get, {
      "wp_users.ID": "personal",
      "wp_users.user_login": "personal",
      "wp_users.user_pass": "personal",
      "wp_users.user_email": "personal",
      "wp_users.user_url": "personal",
      "wp_users.user_registered": "personal",
      "wp_users.user_activation_key": "personal",
      "wp_users.user_status": "not",
      "wp_users.display_name": "personal",
      "wp_usermeta.user_id": "personal",
      "wp_usermeta.meta_key": "not",
      "wp_usermeta.meta_value": "personal",
      "wp_posts.post_author": "personal",
      "wp_posts.post_date": "not",
      "wp_posts.post_content": "personal",
      "wp_posts.post_status": "not",
      "wp_posts.comment_count": "not",
      "wp_comments.comment_author": "personal",
      "wp_comments.comment_author_email": "personal",
      "wp_comments.comment_author_IP": "personal",
      "wp_comments.comment_content": "personal",
      "wp_comments.comment_approved": "not",
      "wp_comments.user_id": "personal",
      "wp_options.option_name": "not",
      "wp_options.option_value": "not"
    })
  })

  it("Django auth and sessions", () => {
    const get = run([
      table("auth_user", [
        "id integer | pk",
        "password varchar(128)",
        "last_login timestamp with time zone",
        "is_superuser boolean",
        "username varchar(150)",
        "first_name varchar(150)",
        "last_name varchar(150)",
        "email varchar(254)",
        "is_staff boolean",
        "is_active boolean",
        "date_joined timestamp with time zone"
      ]),
      table("django_session", [
        "session_key varchar(40) | pk",
        "session_data text",
        "expire_date timestamp with time zone"
      ]),
      table("django_content_type", ["id integer | pk", "app_label varchar(100)", "model varchar(100)"])
    ])
    expectAll(get, {
      "auth_user.id": "personal",
      "auth_user.password": "personal",
      "auth_user.last_login": "personal",
      "auth_user.is_superuser": "not",
      "auth_user.username": "personal",
      "auth_user.email": "personal",
      "auth_user.is_active": "not",
      "auth_user.date_joined": "personal",
      "django_session.session_key": "personal",
      "django_session.session_data": "personal",
      "django_session.expire_date": "not",
      "django_content_type.app_label": "not",
      "django_content_type.model": "not"
    })
  })

  it("a court case service: defendants, offences, case comments", () => {
    const get = run([
      table("court_case", [
        "id bigint | pk",
        "case_id varchar(50)",
        "case_no varchar(50)",
        "urn varchar(50)",
        "source_type varchar(20)",
        "created timestamp"
      ]),
      table("defendant", [
        "id bigint | pk",
        "defendant_id uuid",
        "defendant_name varchar(255)",
        "type varchar(20)",
        "name jsonb",
        "address jsonb",
        "crn varchar(7)",
        "pnc varchar(20)",
        "cro varchar(20)",
        "date_of_birth date",
        "sex varchar(10)",
        "nationality_1 varchar(50)",
        "phone_number jsonb",
        "offender_confirmed boolean",
        "created timestamp",
        "created_by varchar(100)"
      ]),
      table("offender", [
        "id bigint | pk",
        "crn varchar(7)",
        "probation_status varchar(20)",
        "previously_known_termination_date date",
        "suspended_sentence_order boolean",
        "breach boolean",
        "awaiting_psr boolean"
      ]),
      table("offence", [
        "id bigint | pk",
        "fk_hearing_defendant_id bigint | fk:hearing_defendant.id",
        "title varchar(255)",
        "summary text",
        "act varchar(255)",
        "sequence integer",
        "list_no integer"
      ]),
      table("hearing_defendant", [
        "id bigint | pk",
        "fk_hearing_id bigint | fk:hearing.id",
        "fk_defendant_id bigint | fk:defendant.id"
      ]),
      table("hearing", [
        "id bigint | pk",
        "hearing_id varchar(50)",
        "hearing_type varchar(50)",
        "court_code varchar(10)"
      ]),
      table("case_comments", [
        "id bigint | pk",
        "case_id varchar(50)",
        "defendant_id uuid",
        "comment text",
        "author varchar(100)",
        "created timestamp"
      ])
    ])
    expectAll(get, {
      "defendant.id": "personal",
      "defendant.defendant_id": "personal",
      "defendant.defendant_name": "personal",
      "defendant.name": "personal",
      "defendant.address": "personal",
      "defendant.crn": "criminal",
      "defendant.pnc": "criminal",
      "defendant.cro": "criminal",
      "defendant.date_of_birth": "personal",
      "defendant.sex": "personal",
      "defendant.nationality_1": "personal",
      "defendant.phone_number": "personal",
      "defendant.created": "not",
      "defendant.created_by": "personal",
      "offender.crn": "criminal",
      "offender.probation_status": "criminal",
      "offender.suspended_sentence_order": "criminal",
      "offender.breach": "criminal",
      "offence.title": "criminal",
      "offence.summary": "criminal",
      "offence.act": "criminal",
      "offence.id": "not",
      "hearing_defendant.fk_defendant_id": "personal",
      "hearing.hearing_type": "not",
      "hearing.court_code": "not",
      "case_comments.defendant_id": "personal",
      "case_comments.comment": "criminal",
      "case_comments.author": "personal",
      "case_comments.created": "not"
    })
  })

  it("an EHR: patient demographics, vitals, problem lists", () => {
    const get = run([
      table("patient_data", [
        "id bigint | pk",
        "pid bigint",
        "fname varchar(255)",
        "lname varchar(255)",
        "DOB date",
        "street varchar(255)",
        "postal_code varchar(255)",
        "city varchar(255)",
        "phone_home varchar(255)",
        "phone_cell varchar(255)",
        "email varchar(255)",
        "sex varchar(255)",
        "race varchar(255)",
        "ethnicity varchar(255)",
        "religion varchar(40)",
        "occupation longtext",
        "deceased_date datetime",
        "deceased_reason varchar(255)",
        "hipaa_allowemail varchar(3)"
      ]),
      table("form_vitals", [
        "id bigint | pk",
        "date datetime",
        "pid bigint",
        "user varchar(255)",
        "bps varchar(40)",
        "bpd varchar(40)",
        "weight decimal(12,6)",
        "height decimal(12,6)",
        "pulse decimal(12,6)",
        "note varchar(255)",
        "BMI decimal(12,1)"
      ]),
      table("lists", [
        "id bigint | pk",
        "date datetime",
        "type varchar(255)",
        "title varchar(255)",
        "diagnosis varchar(255)",
        "begdate datetime",
        "enddate datetime",
        "pid bigint",
        "comments longtext"
      ])
    ])
    expectAll(get, {
      "patient_data.pid": "personal",
      "patient_data.fname": "personal",
      "patient_data.lname": "personal",
      "patient_data.DOB": "personal",
      "patient_data.street": "personal",
      "patient_data.postal_code": "personal",
      "patient_data.phone_cell": "personal",
      "patient_data.race": "special",
      "patient_data.ethnicity": "special",
      "patient_data.religion": "special",
      "patient_data.occupation": "personal",
      "patient_data.deceased_date": "personal",
      "patient_data.deceased_reason": "special",
      "form_vitals.pid": "personal",
      "form_vitals.bps": "special",
      "form_vitals.weight": "special",
      "form_vitals.height": "special",
      "form_vitals.pulse": "special",
      "form_vitals.BMI": "special",
      "form_vitals.note": "special",
      "lists.pid": "personal",
      "lists.diagnosis": "special"
    })
  })
})

describe("more invented schemas", () => {
  it("Devise-style user accounts, shipments, event attendees, companies, aggregates", () => {
    const get = run([
      table("accounts", [
        "id bigint | pk",
        "email varchar(255)",
        "encrypted_password varchar(255)",
        "reset_password_token varchar(255)",
        "reset_password_sent_at timestamp",
        "remember_created_at timestamp",
        "sign_in_count integer",
        "current_sign_in_at timestamp",
        "last_sign_in_ip inet",
        "confirmation_token varchar(255)",
        "confirmed_at timestamp",
        "unconfirmed_email varchar(255)",
        "failed_attempts integer",
        "name varchar(255)",
        "plan varchar(20)"
      ]),
      table("shipments", [
        "id bigint | pk",
        "order_id bigint",
        "tracking_number varchar(40)",
        "carrier varchar(40)",
        "weight numeric(8,2)",
        "height numeric(8,2)",
        "shipped_at timestamp"
      ]),
      table("attendees", [
        "id bigint | pk",
        "event_id bigint",
        "first_name text",
        "last_name text",
        "email text",
        "dietary_requirements text",
        "ticket_type varchar(20)"
      ]),
      table("companies", [
        "id bigint | pk",
        "name text",
        "vat_number varchar(20)",
        "tax_id varchar(20)",
        "address text",
        "phone text",
        "website text",
        "employee_count integer"
      ]),
      table("daily_active_users", [
        "day date | pk",
        "active_users integer",
        "new_users integer",
        "platform varchar(10)"
      ])
    ])
    expectAll(get, {
      "accounts.id": "personal",
      "accounts.email": "personal",
      "accounts.encrypted_password": "personal",
      "accounts.reset_password_token": "personal",
      "accounts.reset_password_sent_at": "not",
      "accounts.remember_created_at": "not",
      "accounts.sign_in_count": "personal",
      "accounts.current_sign_in_at": "personal",
      "accounts.last_sign_in_ip": "personal",
      "accounts.confirmation_token": "personal",
      "accounts.confirmed_at": "not",
      "accounts.unconfirmed_email": "personal",
      "accounts.failed_attempts": "personal",
      "accounts.name": "personal",
      "accounts.plan": "not",
      "shipments.tracking_number": "not",
      "shipments.carrier": "not",
      "shipments.weight": "not",
      "shipments.height": "not",
      "attendees.first_name": "personal",
      "attendees.email": "personal",
      "attendees.dietary_requirements": "special",
      "attendees.ticket_type": "not",
      "companies.name": "not",
      "companies.vat_number": "not",
      "companies.tax_id": "not",
      "companies.address": "not",
      "companies.phone": "not",
      "companies.website": "not",
      "companies.employee_count": "not",
      "daily_active_users.day": "not",
      "daily_active_users.active_users": "not",
      "daily_active_users.new_users": "not"
    })
  })
})

describe("tables that are not about people stay `not`", () => {
  it("pipeline bookkeeping columns are not on evidence, which the second stage does not re-read", () => {
    const datasets = [
      table("stg_hubspot__contact", [
        "contact_id bigint | pk",
        "email text",
        "first_name text",
        "source_relation text",
        "_fivetran_synced timestamp",
        "_dbt_source_relation text"
      ])
    ]
    const get = run(datasets)
    for (const c of ["source_relation", "_dbt_source_relation"]) {
      expect(get(`stg_hubspot__contact.${c}`)).toMatchObject({ value: "not", rule: "audit:pipeline" })
    }
    expect(get("stg_hubspot__contact._fivetran_synced")).toMatchObject({ value: "not", rule: "event-date" })
    // the whole classifier (rules, second stage, calibration) leaves them so
    const full = classifySource(datasets)[0]!
    expect(full.slice(3).map((v) => v.value)).toEqual(["not", "not", "not"])
    expect(get("stg_hubspot__contact.email").value).toBe("personal")
  })

  it("catalogue, configuration, logs, devices, weather, animals", () => {
    const get = run([
      table("products", [
        "id integer | pk",
        "name text",
        "description text",
        "price numeric",
        "sku text",
        "weight numeric",
        "height numeric",
        "color text",
        "gender text",
        "age_group text",
        "language text",
        "country_of_origin text",
        "rating numeric",
        "status text",
        "notes text",
        "image_url text",
        "title text",
        "created_by integer"
      ]),
      table("app_config", ["key text | pk", "value text", "description text", "updated_at timestamp"]),
      table("app_logs", [
        "id bigint | pk",
        "level text",
        "message text",
        "logger text",
        "host text",
        "created_at timestamp",
        "error text"
      ]),
      table("books", [
        "id integer | pk",
        "title text",
        "author text",
        "isbn text",
        "language text",
        "published_date date",
        "summary text"
      ]),
      table("courses", [
        "id integer | pk",
        "title text",
        "description text",
        "language text",
        "instructor_id integer",
        "start_date date"
      ]),
      table("events", [
        "id integer | pk",
        "title text",
        "description text",
        "location text",
        "start_time timestamp",
        "organizer_id integer",
        "venue_address text"
      ]),
      table("stores", [
        "id integer | pk",
        "name text",
        "address text",
        "city text",
        "country text",
        "latitude numeric",
        "longitude numeric",
        "phone text",
        "email text"
      ]),
      table("sensors", [
        "id integer | pk",
        "device_id text",
        "serial_number text",
        "location text",
        "latitude numeric",
        "longitude numeric",
        "temperature numeric",
        "last_seen_at timestamp"
      ]),
      table("weather_observations", [
        "id integer | pk",
        "station_id integer",
        "observed_at timestamp",
        "temperature numeric",
        "humidity numeric",
        "condition text"
      ]),
      table("animals", [
        "id integer | pk",
        "name text",
        "species text",
        "breed text",
        "sex text",
        "birth_date date",
        "weight numeric",
        "owner_id integer"
      ])
    ])
    const personal = new Set([
      "products.created_by",
      "books.author",
      "courses.instructor_id",
      "events.organizer_id",
      "animals.owner_id"
    ])
    const wrong: Array<string> = []
    for (
      const key of [
        "products.name",
        "products.description",
        "products.weight",
        "products.gender",
        "products.age_group",
        "products.language",
        "products.notes",
        "products.title",
        "app_config.value",
        "app_config.description",
        "app_logs.message",
        "app_logs.host",
        "app_logs.error",
        "books.title",
        "books.language",
        "books.summary",
        "courses.language",
        "courses.description",
        "events.location",
        "events.venue_address",
        "stores.name",
        "stores.address",
        "stores.city",
        "stores.phone",
        "stores.email",
        "stores.latitude",
        "sensors.device_id",
        "sensors.location",
        "sensors.latitude",
        "sensors.last_seen_at",
        "weather_observations.condition",
        "animals.name",
        "animals.sex",
        "animals.birth_date",
        "animals.weight"
      ]
    ) {
      if (get(key).value !== "not") wrong.push(`${key}: ${get(key).value} (${get(key).rule})`)
    }
    for (const key of personal) {
      if (get(key).value !== "personal") wrong.push(`${key}: ${get(key).value} (${get(key).rule})`)
    }
    expect(wrong).toEqual([])
  })
})

// ---------------------------------------------------------------------------------------------
// Performance and the service wrapper
// ---------------------------------------------------------------------------------------------

describe("engine shape", () => {
  it("is aligned with the input and deterministic", () => {
    const ds = [table("a", ["x text", "email text"]), table("b", [])]
    const out = classifySource(ds)
    expect(out.length).toBe(2)
    expect(out[0]!.length).toBe(2)
    expect(out[1]!.length).toBe(0)
    expect(classifySource(ds)).toEqual(out)
  })

  it("never throws on odd metadata", () => {
    const out = classifySource([
      table("", [
        "  text",
        "名前 text",
        "Фамилия varchar(50)",
        "x".repeat(500) + " text",
        "_ integer",
        "a-b-c json",
        "ÜBERSTUNDEN_ANZAHL integer"
      ]),
      table("t", [
        "id integer | pk",
        "ref integer | fk:missing_table.id",
        "c1 | comment:",
        "c2 mystery_type | comment:((("
      ])
    ])
    expect(out[0]!.length).toBe(7)
    for (const v of [...out[0]!, ...out[1]!]) expect(["personal", "special", "criminal", "not"]).toContain(v.value)
  })

  it.effect("is available as the Classifier service", () =>
    Effect.gen(function*() {
      const classifier = yield* Classifier
      const out = classifier.classifySource([table("users", ["id integer | pk", "email text"])])
      expect(out[0]![1]!.value).toBe("personal")
    }).pipe(Effect.provide(ClassifierLive)))
})

describe("a clinical or criminal table does not colour the rest of an application database", () => {
  it("one patients table in a shop: orders stay not, appointments keyed to patients are clinical", () => {
    const get = run([
      table("customers", ["customer_id integer | pk", "email text", "full_name text"]),
      table("orders", [
        "order_id integer | pk",
        "customer_id integer | fk:customers.customer_id",
        "total_cents integer",
        "status text"
      ]),
      table("order_items", [
        "order_id integer | fk:orders.order_id",
        "product_id integer",
        "quantity integer",
        "unit_price_cents integer"
      ]),
      table("patients", [
        "patient_id integer | pk",
        "customer_id integer | fk:customers.customer_id",
        "allergies text"
      ]),
      table("appointments", [
        "appointment_id integer | pk",
        "patient_id integer | fk:patients.patient_id",
        "visit_type text",
        "scheduled_for timestamp"
      ])
    ])
    expectAll(get, {
      "orders.total_cents": "not",
      "orders.status": "not",
      "order_items.quantity": "not",
      "order_items.unit_price_cents": "not",
      "appointments.visit_type": "special"
    })
  })

  it("one defendants table beside a shop: orders and events are not criminal", () => {
    const get = run([
      table("customers", ["customer_id integer | pk", "email text"]),
      table("orders", [
        "order_id integer | pk",
        "customer_id integer | fk:customers.customer_id",
        "total_cents integer"
      ]),
      table("events", ["event_id integer | pk", "customer_id integer | fk:customers.customer_id", "event_type text"]),
      table("defendants", ["defendant_id integer | pk", "full_name text", "offence_code text"])
    ])
    expectAll(get, { "orders.total_cents": "not", "events.event_type": "not", "defendants.offence_code": "criminal" })
  })
})
