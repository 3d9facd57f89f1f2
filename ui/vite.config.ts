import { defineConfig } from "vitest/config";
import preact from "@preact/preset-vite";

// Everything is bundled locally: the window loads nothing remote (CSP in
// src-tauri/tauri.conf.json).
export default defineConfig({
  plugins: [preact()],
  clearScreen: false,
  build: { target: "safari15", outDir: "dist", emptyOutDir: true, assetsInlineLimit: 0 },
  test: { environment: "jsdom", include: ["src/**/*.test.tsx", "src/**/*.test.ts"] },
});
