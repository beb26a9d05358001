// Prompt templates are imported as text (esbuild `loader: { '.md': 'text' }`, a vitest transform, a Node hook in bench).
declare module '*.md' {
  const text: string;
  export default text;
}
