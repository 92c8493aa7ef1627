CREATE TABLE `organization_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`email` text NOT NULL,
	`roles` text DEFAULT '["member"]' NOT NULL,
	`scopes` text DEFAULT '[]' NOT NULL,
	`invited_by_user_id` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`declined_at` integer,
	`revoked_at` integer,
	`accepted_by_user_id` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`accepted_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `organization_invitations_organization_id_idx` ON `organization_invitations` (`organization_id`);--> statement-breakpoint
CREATE INDEX `organization_invitations_email_idx` ON `organization_invitations` (`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `organization_invitations_pending_unique` ON `organization_invitations` (`organization_id`,`email`) WHERE accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL;