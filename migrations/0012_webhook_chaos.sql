ALTER TABLE "chaos_settings" ADD COLUMN "webhook_faults" text;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "chaos" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "chaos" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "held_until" timestamp (3) with time zone;