// The hosted sign-in page under /auth/ (see web/shared/vite-build.ts).
import { defineConfig } from "vite";
import { frontendConfig } from "../shared/vite-build";

export default defineConfig(frontendConfig("/auth/"));
