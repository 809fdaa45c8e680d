import ReactMarkdown from "react-markdown";

/**
 * Published bodies are Markdown. react-markdown renders to React elements and
 * ignores raw HTML, so a body (model or remote text) cannot inject markup.
 */
export function Markdown({ text, className = "" }: { text: string; className?: string }) {
  return (
    <div className={`markdown [overflow-wrap:anywhere] ${className}`}>
      <ReactMarkdown>{text}</ReactMarkdown>
    </div>
  );
}
