import { expect, test } from "vitest";
import { blankErrors } from "./bind";

test("blankErrors names the blank members (spaces count as blank), only those asked about", () => {
  const values = { name: "  ", audience: "aud", description: "" };
  expect(blankErrors(values, { name: "Enter a name.", audience: "Enter the audience." })).toEqual({
    name: "Enter a name.",
  });
});

test("blankErrors keeps spaces as a value where they are one (a password)", () => {
  const values = { password: "   ", confirm: "" };
  expect(blankErrors(values, {}, { password: "Enter a password.", confirm: "Confirm it." })).toEqual({
    confirm: "Confirm it.",
  });
});
