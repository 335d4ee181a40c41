import { useEffect, useState } from 'preact/hooks';

/**
 * An SVG from the API shown as an <img> from a blob: URL: an image cannot run script nor reach
 * the page, which injecting the markup as HTML would allow.
 */
export function SvgImage({ svg, alt }: { svg: string; alt: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [svg]);
  return url ? <img class="diagram" src={url} alt={alt} /> : null;
}
