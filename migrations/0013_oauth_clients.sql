CREATE INDEX `oauth_authorization_requests_client_idx` ON `oauth_authorization_requests` (`client_id`);--> statement-breakpoint
CREATE INDEX `oauth_codes_grant_idx` ON `oauth_codes` (`grant_id`);