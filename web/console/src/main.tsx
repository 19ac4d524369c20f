/**
 * Administration and self-service dashboard (`/console/*`): React with React Aria
 * Components (docs/console.md says why), signed in as the public client `console`.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./style.css";

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
