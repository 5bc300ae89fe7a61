"use client";

// The browser's own notifications (the Notification API), for a notification that arrives while
// the tab is hidden; a click brings the tab forward and opens the place. Asked for only from the
// person's click in the notification settings, never on load.

export const browserNotificationsSupported = () => typeof window !== "undefined" && "Notification" in window;

export function showBrowserNotification(n: { id: string; title: string; body: string; link: string }) {
  if (!browserNotificationsSupported() || Notification.permission !== "granted") return;
  if (document.visibilityState === "visible") return;
  const shown = new Notification(n.title, { body: n.body.slice(0, 200), tag: n.id });
  shown.onclick = () => {
    window.focus();
    window.location.assign(n.link);
    shown.close();
  };
}
