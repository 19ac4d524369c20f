import { expect, test } from "vitest";
import { safeReturnPath } from "./session";

test.each([
  ["/console/admin/users?email=a", "/console/admin/users?email=a"],
  ["/console", "/console"],
  ["/console/callback?code=x", "/console/"],
  ["/consolex", "/console/"],
  ["https://evil.example/console/", "/console/"],
  ["//evil.example/console/", "/console/"],
])("safeReturnPath(%j) is %j", (path, safe) => {
  expect(safeReturnPath(path)).toBe(safe);
});
