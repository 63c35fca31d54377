ALTER TABLE "sandbox_snapshots" ADD COLUMN "base_xmin" bigint;--> statement-breakpoint
ALTER TABLE "sandbox_snapshots" ADD COLUMN "base_xid" bigint;