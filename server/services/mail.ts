import nodemailer from "nodemailer";
import type { SmtpConfig } from "@/server/env";
import type { MailSender } from "@/server/tools/send-email";

// Outgoing mail for send_email, through the SMTP server the admin configured (SMTP_*).

export function createMailSender(smtp: SmtpConfig): MailSender & { close(): void } {
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password ?? "" } } : {}),
  });
  return {
    from: smtp.from,
    async send(message) {
      const info = await transport.sendMail({
        from: smtp.from,
        to: message.to,
        subject: message.subject,
        text: message.body,
      });
      return { messageId: info.messageId };
    },
    close: () => transport.close(),
  };
}
