ALTER TABLE "inbound_transfers" ADD COLUMN "imad" text;--> statement-breakpoint
ALTER TABLE "inbound_transfers" ADD COLUMN "omad" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "imad" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "omad" text;--> statement-breakpoint
ALTER TABLE "transfers" ADD COLUMN "recall" jsonb;