/** Opens a session in the project's IDE: the agent panel reopens the session stored under this key. */
export function openSessionHref(projectId: string, sessionId: string): { href: string; onClick(): void } {
  return {
    href: `/p/${projectId}`,
    onClick: () => localStorage.setItem(`tandem-agent-session:${projectId}`, sessionId),
  };
}
