-- A band store at schema v1, made by the build that shipped it (commit 01ce93d): a scratch
-- program filled BandStore(path:) through that build's own API, and Python's sqlite3 iterdump()
-- wrote the file out. Never edit: the upgrade tests load it as the real earlier build's database.
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO "grdb_migrations" VALUES('v1');
CREATE TABLE "session" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "kind" TEXT NOT NULL CHECK ("kind" IN ('calibration', 'mindful-walk')), "start_unix" DOUBLE NOT NULL, "end_unix" DOUBLE, "steps" INTEGER NOT NULL DEFAULT 0, "distance_m" DOUBLE NOT NULL DEFAULT 0, "avg_hr_bpm" DOUBLE, "alerts" INTEGER NOT NULL DEFAULT 0, "time_over_limit_s" INTEGER NOT NULL DEFAULT 0, "gap_s" INTEGER NOT NULL DEFAULT 0, "rmssd_ms" DOUBLE, "measured_cadence_spm" DOUBLE, "calibrated_cadence_spm" DOUBLE, "reduction_percent" INTEGER, "limit_cadence_spm" DOUBLE, "step_length_m" DOUBLE NOT NULL);
INSERT INTO "session" VALUES(1,'calibration',1763800000.0,1763800006.0,10,7.19999999999999928945e+00,95.25,0,0,3,NULL,112.5,NULL,NULL,NULL,0.72);
INSERT INTO "session" VALUES(2,'mindful-walk',1763803600.0,1763803608.0,13,9.36,96.5,1,3,3,41.25,NULL,112.5,20,90.0,0.72);
INSERT INTO "session" VALUES(3,'mindful-walk',1763807200.0,NULL,0,0.0,NULL,0,0,0,NULL,NULL,112.5,20,90.0,0.72);
CREATE TABLE "session_second" ("session_id" INTEGER NOT NULL REFERENCES "session"("id") ON DELETE CASCADE, "offset_s" INTEGER NOT NULL, "steps" INTEGER NOT NULL, "cadence_spm" DOUBLE NOT NULL, "hr_bpm" DOUBLE, "hr_confidence" DOUBLE, "over_limit" BOOLEAN NOT NULL, "alerts" INTEGER NOT NULL, "accelerometer_gap" BOOLEAN NOT NULL, "hr_gap" BOOLEAN NOT NULL, PRIMARY KEY ("session_id", "offset_s"));
INSERT INTO "session_second" VALUES(1,0,1,112.0,NULL,NULL,0,0,0,1);
INSERT INTO "session_second" VALUES(1,1,2,112.25,93.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(1,2,2,112.5,94.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(1,3,1,112.75,95.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(1,4,2,112.0,NULL,NULL,0,0,0,1);
INSERT INTO "session_second" VALUES(1,5,2,112.25,97.5,0.875,0,0,1,0);
INSERT INTO "session_second" VALUES(2,0,1,88.0,NULL,NULL,0,0,0,1);
INSERT INTO "session_second" VALUES(2,1,2,88.25,93.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(2,2,2,88.5,94.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(2,3,1,88.75,95.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(2,4,2,88.0,NULL,NULL,0,0,0,1);
INSERT INTO "session_second" VALUES(2,5,2,88.25,97.5,0.875,1,0,1,0);
INSERT INTO "session_second" VALUES(2,6,1,88.5,98.5,0.875,1,1,0,0);
INSERT INTO "session_second" VALUES(2,7,2,88.75,99.5,0.875,1,0,0,0);
INSERT INTO "session_second" VALUES(3,0,1,95.0,NULL,NULL,0,0,0,1);
INSERT INTO "session_second" VALUES(3,1,2,95.25,93.5,0.875,0,0,0,0);
INSERT INTO "session_second" VALUES(3,2,2,95.5,94.5,0.875,0,0,0,0);
CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
INSERT INTO "setting" VALUES('band_id','d394b6ca-f8bf-41e0-93b4-f818e122cf5f');
INSERT INTO "setting" VALUES('band_name','Left wrist');
INSERT INTO "setting" VALUES('calibration','{"stepLengthMeters":0.72,"unixSeconds":1763800006,"cadenceStepsPerMinute":112.5}');
INSERT INTO "setting" VALUES('reduction_percent','25');
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('session',3);
COMMIT;
