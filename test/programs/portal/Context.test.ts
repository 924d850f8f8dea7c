/**
 * The caller's address behind trusted proxies: the n-th X-Forwarded-For entry from the right (what the
 * outermost trusted proxy saw), never an entry the caller wrote, and only an IP address; and the count keys,
 * one namespace per kind of count.
 */
import { describe, expect, it } from "vitest"
import { codeCountKey, forwardedAddress, uploadCountKey } from "../../../src/programs/portal/Context.js"

describe("forwardedAddress", () => {
  it("takes the right-most entry with one proxy, the n-th from the right with n", () => {
    expect(forwardedAddress("198.51.100.7", 1)).toBe("198.51.100.7")
    // The caller wrote the left part; nginx / an ALB appended the address it saw.
    expect(forwardedAddress("1.2.3.4, 198.51.100.7", 1)).toBe("198.51.100.7")
    expect(forwardedAddress("1.2.3.4, 198.51.100.7, 10.0.0.2", 2)).toBe("198.51.100.7")
    expect(forwardedAddress("2001:db8::1", 1)).toBe("2001:db8::1")
  })

  it("is null (the socket's address is used) without the header, with too few entries, or for a non-address", () => {
    expect(forwardedAddress(undefined, 1)).toBeNull()
    expect(forwardedAddress("198.51.100.7", 0)).toBeNull()
    expect(forwardedAddress("198.51.100.7", 2)).toBeNull()
    expect(forwardedAddress("claim-code:cl_abc", 1)).toBeNull()
    expect(forwardedAddress("1.2.3.4, code:cl_abc", 1)).toBeNull()
    expect(forwardedAddress("1.2.3.4, ", 1)).toBeNull()
  })

  it("keys uploads and codes in separate namespaces", () => {
    expect(uploadCountKey("198.51.100.7")).toBe("ip:198.51.100.7")
    expect(codeCountKey("cl_abc")).toBe("code:cl_abc")
  })
})
