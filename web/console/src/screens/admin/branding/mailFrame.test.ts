import { expect, test } from "vitest";
import { setStylesAside } from "./mailFrame";

test("inline styles are set aside in their tags, <style> sheets taken out; text is untouched", () => {
  const mail =
    '<html><head><style>p > a { color: red }</style></head><body style="margin:0">' +
    '<p class="x" STYLE = "color:#123">Your style=new &lt;b style="x"&gt;</p><a data-style="keep" href="/r">go</a></body></html>';
  expect(setStylesAside(mail)).toEqual({
    html:
      '<html><head></head><body data-mail-style="margin:0">' +
      '<p class="x" data-mail-style = "color:#123">Your style=new &lt;b style="x"&gt;</p><a data-style="keep" href="/r">go</a></body></html>',
    sheets: ["p > a { color: red }"],
  });
});
