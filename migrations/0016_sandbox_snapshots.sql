CREATE TABLE "sandbox_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"merchant_id" text NOT NULL,
	"name" text NOT NULL,
	"clock" jsonb,
	"rows" jsonb NOT NULL,
	"counts" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_snapshots_merchant_name" ON "sandbox_snapshots" USING btree ("merchant_id","name");