ALTER TABLE "counterparties" ADD COLUMN "verification_state" text DEFAULT 'unverified' NOT NULL;--> statement-breakpoint
ALTER TABLE "counterparties" ADD COLUMN "verification" jsonb;