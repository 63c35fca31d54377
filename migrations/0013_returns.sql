ALTER TABLE "transfers" ADD COLUMN "return_untimely" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonored_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonor_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "dishonor_reason" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contested_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contest_code" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "contest_reason" text;