/* gsst 1.2 -> 1.3: no internal entry point a role can call. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.3'" to load this file. \quit
