/**
 * Administration and self-service dashboard (`/console/*`): React with React Aria
 * Components (docs/console.md says why), signed in as the public client `console`.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { setLocale } from "./i18n";
import { browserLocale } from "./i18n/preference";
import "./style.css";

const root = document.getElementById("root");
if (root) {
  // The browser's language is loaded before the first paint (no flash of English); once
  // signed in, the saved preference may switch it (App, i18n/preference.ts).
  const start = (): void =>
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  setLocale(browserLocale()).then(start, start);
}
