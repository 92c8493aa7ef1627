// react-dom ships no types and @types/react-dom is not installed; the React binding tests need only this.
declare module 'react-dom/server' {
  export function renderToString(node: import('react').ReactNode): string;
}
