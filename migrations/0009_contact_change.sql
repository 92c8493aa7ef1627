CREATE TABLE `contact_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`channel` text NOT NULL,
	`old_value` text,
	`new_value` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`requested_by_user_id` text,
	`completed_at` integer,
	`report_token_hash` text,
	`report_expires_at` integer,
	`reported_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `contact_changes_user_channel_idx` ON `contact_changes` (`user_id`,`channel`);--> statement-breakpoint
CREATE INDEX `contact_changes_report_token_idx` ON `contact_changes` (`report_token_hash`);--> statement-breakpoint
CREATE INDEX `contact_changes_created_at_idx` ON `contact_changes` (`created_at`);