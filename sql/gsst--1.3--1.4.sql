/* gsst 1.3 -> 1.4: dictionaries no stored value needs can be dropped. */

\echo Use "ALTER EXTENSION gsst UPDATE TO '1.4'" to load this file. \quit
