CREATE INDEX `auth_failures_occurred_at_idx` ON `auth_failures` (`occurred_at`);--> statement-breakpoint
CREATE INDEX `otp_codes_expires_at_idx` ON `otp_codes` (`expires_at`);--> statement-breakpoint
CREATE INDEX `totp_credentials_created_at_idx` ON `totp_credentials` (`created_at`);