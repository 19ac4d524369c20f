import { expect, test } from "vitest";
import { linesOf } from "./common";

test("linesOf keeps the non-blank lines, trimmed, with their numbers", () => {
  expect(linesOf(" https://a/cb \r\n\n  \nhttps://b/cb")).toEqual([
    { number: 1, text: "https://a/cb" },
    { number: 4, text: "https://b/cb" },
  ]);
});
