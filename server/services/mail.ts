import type { Transporter } from "nodemailer";
import type { SmtpConfig } from "@/server/env/config";
import type { MailSender } from "@/server/tools/send-email";

// Outgoing mail for send_email, through the SMTP server the admin configured (SMTP_*). nodemailer
// loads with the first message, not at start: most servers send mail rarely, if ever.

export function createMailSender(smtp: SmtpConfig): MailSender & { close(): void } {
  let transport: Promise<Transporter> | undefined;
  const connect = () =>
    (transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? "" } } : {}),
      }),
    ));
  return {
    from: smtp.from,
    async send(message) {
      const info = await (await connect()).sendMail({
        from: smtp.from,
        to: message.to,
        subject: message.subject,
        text: message.body,
      });
      return { messageId: info.messageId };
    },
    close: () => void transport?.then((t) => t.close()),
  };
}
