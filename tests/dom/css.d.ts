// The panes' test pages import style sheets as text (tests/helpers/chromium.ts bundles `.css` with the text loader).
declare module '*.css' {
  const text: string;
  export default text;
}
