import { it } from "vitest"
import { tokenizer } from "../../src/classifier/compile.js"
it("dbg", () => {
  for (const w of ["emailcode", "emailstreet", "emailaddress", "emailadres", "phoneaddress", "mailaddress", "emailaddressx", "xemailaddress"]) console.log(w, tokenizer.splitCompound(w), tokenizer.tokens(w))
})
