// Preload (`node --import <this file>`) that makes every way of opening a socket or resolving a name
// throw: TCP/IPC connects and listens, TLS, UDP, HTTP(S) requests, fetch, WebSocket and DNS. Each
// attempt is also appended to $NO_NETWORK_LOG (with "loaded" once at start-up), so a test can prove
// the preload was active and that nothing tried, even where a library swallows the error.
import dgram from "node:dgram"
import dns from "node:dns"
import fs from "node:fs"
import http from "node:http"
import https from "node:https"
import module from "node:module"
import net from "node:net"
import process from "node:process"
import tls from "node:tls"

const log = process.env.NO_NETWORK_LOG
const note = (line) => {
  if (log) fs.appendFileSync(log, `${process.pid} ${line}\n`)
}
const blocked = (what) => {
  note(`blocked ${what}`)
  throw new Error(`no-network preload: ${what} is not allowed in this process`)
}
const replace = (target, names, label) => {
  for (const name of names) {
    if (typeof target[name] === "function") {
      target[name] = function() {
        return blocked(`${label}.${name}`)
      }
    }
  }
}

replace(net, ["connect", "createConnection", "createServer"], "net")
replace(net.Socket.prototype, ["connect"], "net.Socket")
replace(net.Server.prototype, ["listen"], "net.Server")
replace(tls, ["connect", "createServer"], "tls")
replace(dgram, ["createSocket"], "dgram")
replace(http, ["request", "get", "createServer"], "http")
replace(https, ["request", "get", "createServer"], "https")
const dnsNames = [
  "lookup",
  "lookupService",
  "resolve",
  "resolve4",
  "resolve6",
  "resolveAny",
  "resolveCname",
  "resolveMx",
  "resolveNs",
  "resolveSrv",
  "resolveTxt",
  "reverse"
]
replace(dns, dnsNames, "dns")
replace(dns.promises, dnsNames, "dns.promises")
replace(dns.Resolver.prototype, dnsNames, "dns.Resolver")
replace(dns.promises.Resolver.prototype, dnsNames, "dns.promises.Resolver")
globalThis.fetch = () => blocked("fetch")
if (typeof globalThis.WebSocket === "function") {
  globalThis.WebSocket = function WebSocket() {
    return blocked("WebSocket")
  }
}
// ESM `import { connect } from "node:net"` sees the patched functions too.
module.syncBuiltinESMExports()
note("loaded")
