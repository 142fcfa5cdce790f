// E-mail delivery through the host's `email.send`. Without one, it logs that a mail would be sent;
// the body (which holds a token or link) is logged only when NODE_ENV is `development`.
import type { Logger } from '../config/types';
import type { EmailMessage } from '../config/types';

export interface Mailer {
  /** Sends the mail; never rejects (a failure is logged without the mail's content). */
  deliver(mail: EmailMessage): Promise<void>;
}

/** Creates the mailer once per router. */
export function createMailer(send: ((mail: EmailMessage) => Promise<void> | void) | undefined, logger: Required<Logger>): Mailer {
  const development = process.env.NODE_ENV === 'development';
  const fallback = (mail: EmailMessage) => {
    const line = `content-router: no email.send configured; would send "${mail.subject}" to ${mail.to}`;
    logger.info(development ? `${line}\n${mail.text}` : line);
  };
  const transport = send ?? fallback;
  return {
    async deliver(mail) {
      try {
        // Called before the first await, so a capturing sender sees the mail before the response goes out.
        await transport(mail);
      } catch (error) {
        // Only the error's name and code: a transport's message may quote the mail, token included.
        const name = error instanceof Error ? error.name : 'error';
        const code = (error as { code?: unknown } | null)?.code;
        logger.error(`content-router: sending the "${mail.subject}" e-mail failed (${typeof code === 'string' ? `${name} ${code}` : name})`);
      }
    },
  };
}

/**
 * A mail an operation prepared but left to its caller to send: the HTTP routes send it after the answer
 * is on its way (so a known address answers as fast as an unknown one), server code awaits it.
 */
export type PendingMail = () => Promise<void>;

/** The pending mail of an operation that has nothing to send. */
export const NO_MAIL: PendingMail = () => Promise.resolve();
