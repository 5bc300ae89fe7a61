"use client";

import { type ComponentType, type ReactNode, useEffect, useState } from "react";

// Code that loads on first use: a component not on a page's first screen (components/ide/
// deferred-panels.tsx lists the IDE's), fetched when first shown or by a preload.

/** A component's code, loaded once, on first use or by the preload. */
export class DeferredCode<P> {
  loaded: ComponentType<P> | undefined;
  private loading: Promise<unknown> | undefined;
  private markIn: () => void = () => {};
  /** Resolves once the code is in, however it was asked for; asks for nothing itself. */
  readonly in = new Promise<void>((resolve) => {
    this.markIn = resolve;
  });

  constructor(private readonly load: () => Promise<ComponentType<P>>) {}

  preload(): Promise<unknown> {
    this.loading ??= this.load().then(
      (component) => {
        this.loaded = component;
        this.markIn();
      },
      (error: unknown) => {
        this.loading = undefined; // asked again next time
        throw error;
      },
    );
    return this.loading;
  }
}

/**
 * Renders `code`'s component once it is loaded. Loaded before (shown once, or preloaded), it
 * renders at once, in the frame of the click that shows it: next/dynamic's lazy component
 * suspended once even then, and put its placeholder on screen for that frame.
 */
export function Deferred<P extends object>({
  code,
  props,
  fallback = <div className="center-message">Loading…</div>,
}: {
  code: DeferredCode<P>;
  props: P;
  /** What shows until the code is in. */
  fallback?: ReactNode;
}) {
  const [failed, setFailed] = useState<{ error: unknown } | null>(null);
  const [, setReady] = useState(false);
  useEffect(() => {
    if (!code.loaded)
      code.preload().then(
        () => setReady(true),
        (error: unknown) => setFailed({ error }),
      );
  }, [code]);
  if (failed) throw failed.error;
  const Loaded = code.loaded;
  return Loaded ? <Loaded {...props} /> : fallback;
}
