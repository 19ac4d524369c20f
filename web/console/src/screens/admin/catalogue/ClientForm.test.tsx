// @vitest-environment happy-dom
/**
 * The client form's allowed web origins: shown one per line, sent as a list of
 * the non-blank lines (trimmed); none entered sends an empty list (the redirect URIs'
 * origins then apply).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { ClientForm, type ClientSettings } from "./ClientForm";
import type { Client } from "./common";
import { clientOf } from "./testing";

afterEach(cleanup);

const spa = clientOf;

function renderForm(client: Client) {
  const onSubmit = vi.fn<(settings: ClientSettings) => Promise<string | null>>(async () => "Saved.");
  render(<ClientForm client={client} label="Client settings" submitLabel="Save client" onSubmit={onSubmit} />);
  const form = screen.getByRole("form", { name: "Client settings" });
  const origins = within(form).getByLabelText("Allowed web origins") as HTMLTextAreaElement;
  return { form, origins, onSubmit };
}

test("the stored origins are shown one per line and sent back as a list", async () => {
  const { form, origins, onSubmit } = renderForm(spa({ allowedWebOrigins: ["https://orders.example"] }));
  expect(origins.value).toBe("https://orders.example");
  expect(within(form).getByText(/Leave empty for the origins of the redirect URIs/)).toBeTruthy();

  fireEvent.change(origins, { target: { value: " https://orders.example \n\nhttp://localhost:5173\n" } });
  fireEvent.click(within(form).getByRole("button", { name: "Save client" }));
  await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
  expect(onSubmit.mock.calls[0]?.[0].allowedWebOrigins).toEqual(["https://orders.example", "http://localhost:5173"]);
});

test("no origins entered sends an empty list", async () => {
  const { form, origins, onSubmit } = renderForm(spa());
  expect(origins.value).toBe("");
  fireEvent.click(within(form).getByRole("button", { name: "Save client" }));
  await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(1));
  expect(onSubmit.mock.calls[0]?.[0].allowedWebOrigins).toEqual([]);
});
