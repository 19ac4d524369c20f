import { describe, expect, test } from "vitest";
import {
  type Draft,
  EMPTY_DRAFT,
  type ProfileField,
  createBody,
  draftOf,
  enumList,
  exampleValue,
  flagsOf,
  localErrors,
  patchBody,
  validatorsOf,
} from "./model";

const draft = (changes: Partial<Draft>): Draft => ({ ...EMPTY_DRAFT, ...changes });

const STORED: ProfileField = {
  id: "f1",
  key: "shoe_size",
  label: "Shoe size",
  dataType: "integer",
  required: false,
  unique: false,
  userReadable: true,
  userWritable: true,
  validators: { min: 1, max: 60 },
  enumValues: null,
  displayOrder: 3,
  groupId: null,
  claimName: null,
  claimScope: null,
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
};

describe("localErrors", () => {
  test("refuses numbers that are not whole, under the API's member names", () => {
    expect(localErrors(draft({ dataType: "string", minLength: "2.5", displayOrder: "x" }))).toEqual({
      "validators.minLength": "must be a whole number",
      displayOrder: "must be a whole number",
    });
  });

  test("ignores inputs that do not apply to the type, and empty ones", () => {
    expect(localErrors(draft({ dataType: "boolean", minLength: "x", min: "y" }))).toEqual({});
    expect(localErrors(draft({ dataType: "integer", min: "-3", max: "" }))).toEqual({});
  });
});

describe("validatorsOf", () => {
  test("text types keep pattern and lengths", () => {
    expect(validatorsOf(draft({ dataType: "email", pattern: "^a", minLength: "1", maxLength: "9", min: "4" }))).toEqual({
      pattern: "^a",
      minLength: 1,
      maxLength: 9,
    });
  });

  test("integers keep numeric bounds, dates keep text bounds", () => {
    expect(validatorsOf(draft({ dataType: "integer", min: "-1", max: "x" }))).toEqual({ min: -1 });
    expect(validatorsOf(draft({ dataType: "date", min: "2000-01-01" }))).toEqual({ min: "2000-01-01" });
  });
});

describe("createBody", () => {
  test("sends every member; enum values one per non-blank line", () => {
    const body = createBody(draft({ key: " colour ", label: "Colour", dataType: "enum", enumValues: "red\n\n blue \n" }));
    expect(body).toEqual({
      key: "colour",
      label: "Colour",
      dataType: "enum",
      required: false,
      unique: false,
      userReadable: true,
      userWritable: false,
      validators: {},
      claimName: null,
      claimScope: null,
      enumValues: ["red", "blue"],
    });
  });

  test("a display order and a group only when given", () => {
    const body = createBody(draft({ key: "k", label: "K", displayOrder: "7", groupId: "g1", claimName: " nick " }));
    expect(body.displayOrder).toBe(7);
    expect(body.groupId).toBe("g1");
    expect(body.claimName).toBe("nick");
  });
});

describe("patchBody", () => {
  test("nothing changed, nothing sent (validators compared whatever their order)", () => {
    const edited = draftOf({ ...STORED, validators: { max: 60, min: 1 } });
    expect(patchBody(STORED, edited)).toEqual({});
  });

  test("only the changed members", () => {
    expect(patchBody(STORED, { ...draftOf(STORED), label: "Size", max: "", displayOrder: "4" })).toEqual({
      label: "Size",
      validators: { min: 1 },
      displayOrder: 4,
    });
  });
});

describe("the editor's state", () => {
  test("draftOf keeps every input as text", () => {
    const state = draftOf(STORED);
    expect(state.min).toBe("1");
    expect(state.displayOrder).toBe("3");
    expect(state.claimName).toBe("");
  });

  test("enumList drops blank lines", () => {
    expect(enumList(draft({ enumValues: " a \n\nb" }))).toEqual(["a", "b"]);
  });

  test("exampleValue: a known claim's example when it fits the type, else one of the type", () => {
    expect(exampleValue(draft({ claimName: "given_name" }))).toBe("Ada");
    expect(exampleValue(draft({ dataType: "integer", claimName: "given_name" }))).toBe(42);
    expect(exampleValue(draft({ dataType: "enum", enumValues: "s\nm" }))).toBe("s");
  });

  test("flagsOf names the rules that hold", () => {
    expect(flagsOf({ ...STORED, required: true, groupId: "g" })).toEqual([
      "required",
      "user-readable",
      "user-writable",
      "group only",
    ]);
  });
});
