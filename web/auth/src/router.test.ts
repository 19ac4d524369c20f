import { expect, test } from "vitest";
import { routeOf } from "./router";

const BASE = import.meta.env.BASE_URL; // "/auth/" in the build, "/" under vitest

test.each([
  ["", ""],
  ["login", "login"],
  ["login/", "login"],
  ["reset//", "reset"],
  ["logged-out", "logged-out"],
])("routeOf(BASE + %j) is %j", (below, route) => {
  expect(routeOf(BASE + below)).toBe(route);
});
