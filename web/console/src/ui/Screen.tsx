import { type ReactNode, useEffect, useRef } from "react";

interface ScreenProps {
  title: string;
  /** A line under the heading saying what the screen is for. */
  intro?: ReactNode;
  /** Buttons or links beside the heading (for example "New client"). */
  actions?: ReactNode;
  children: ReactNode;
}

/** The first screen after a page load leaves focus at the top (the skip link comes first). */
let pageJustLoaded = true;

/**
 * One screen: `document.title` names it, and when the person moves to it within the page
 * its `<h1>` takes focus, so a screen reader announces the new screen.
 */
export function Screen({ title, intro, actions, children }: ScreenProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Console`;
    if (pageJustLoaded) pageJustLoaded = false;
    else heading.current?.focus();
  }, [title]);
  return (
    <section className="screen" aria-labelledby="screen-title">
      <div className="screen-head">
        <h1 id="screen-title" tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {actions ? <div className="screen-actions">{actions}</div> : null}
      </div>
      {intro ? <p className="intro">{intro}</p> : null}
      {children}
    </section>
  );
}

/** A titled part of a screen. */
export function Panel({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = `panel-${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}
