// Markdown through the real marked package (minified, with its own source maps to marked's .ts sources).
import { marked } from "marked";

export function render(markdown: string): string {
  const html = marked.parse(markdown, { async: false }) as string; // RENDER_PARSE
  return html;
}
