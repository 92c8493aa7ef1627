ALTER TABLE `magic_link_tokens` ADD `confirmation` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `magic_link_tokens` ADD `confirmation_number` integer;--> statement-breakpoint
ALTER TABLE `magic_link_tokens` ADD `binding_hash` text;--> statement-breakpoint
ALTER TABLE `magic_link_tokens` ADD `refused_at` integer;--> statement-breakpoint
ALTER TABLE `magic_link_tokens` ADD `requested_by` text;