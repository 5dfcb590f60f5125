"""Alert e-mails about verdicts: composed as RFC 5322 messages, sent over SMTP."""
