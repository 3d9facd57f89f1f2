import { defineConfig } from "vitest/config";
import preact from "@preact/preset-vite";

// Everything is bundled locally: the window loads nothing remote (CSP in
// src-tauri/tauri.conf.json).
export default defineConfig({
  plugins: [preact()],
  clearScreen: false,
  // The passphrase estimator's dictionaries (src/strength.ts) are one chunk of
  // their own, about 2.3 MB, loaded only when a new passphrase is typed.
  // Two pages: the main window's (index.html) and the consent window's
  // (consent.html: the consent view alone, so a request's window loads less).
  build: {
    target: "safari15",
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2500,
    rollupOptions: { input: { index: "index.html", consent: "consent.html" } },
  },
  test: { environment: "jsdom", include: ["src/**/*.test.tsx", "src/**/*.test.ts"] },
});
