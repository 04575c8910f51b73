/*
 * test_golden.h - golden byte vectors of the codec (test_golden.c): tests
 * that compare what the codec writes today with the bytes pinned under
 * golden/, and the writer that regenerates those files on purpose.
 */
#ifndef GSST_TEST_GOLDEN_H
#define GSST_TEST_GOLDEN_H

void		test_golden_inputs(void);
void		test_golden_table_train(void);
void		test_golden_table_train_pg(void);
void		test_golden_table_load(void);
void		test_golden_datum_encode(void);
void		test_golden_datum_decode(void);
void		test_golden_tile_encode(void);
void		test_golden_tile_decode(void);

/* Rewrite every file under the golden directory; returns an exit status. */
int			golden_write(void);

#endif							/* GSST_TEST_GOLDEN_H */
