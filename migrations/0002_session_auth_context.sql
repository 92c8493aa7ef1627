ALTER TABLE `sessions` ADD `auth_time` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `auth_method` text;