// The web console under /console/ (see web/shared/vite-build.ts).
import { defineConfig } from "vite";
import { frontendConfig } from "../shared/vite-build";

export default defineConfig(frontendConfig("/console/"));
