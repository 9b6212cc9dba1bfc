/**
 * Rarity weights of name tokens: how much evidence sharing a token carries. Defined here once and
 * read by the name index (weights of listed tokens), the query side of candidate selection and
 * the name scorer's built-in rarity model.
 */

/** A particle ("al", "bin", "van"): kept for alignment, almost no evidence. */
export const PARTICLE_WEIGHT = 0.1;
/** An initial ("V."): agrees or not, but stands for many names. */
export const INITIAL_WEIGHT = 0.35;
/** A patronymic ("Vladimirovich"): often omitted by lists and customers alike. */
export const PATRONYMIC_WEIGHT = 0.4;
/** Least weight of a listed token however common it is. */
export const MIN_TOKEN_WEIGHT = 0.15;
/** A common given name in the built-in rarity model (used when no list index is at hand). */
export const COMMON_GIVEN_WEIGHT = 0.5;
/** A token no list contains: as rare as a token can be. */
export const UNSEEN_TOKEN_WEIGHT = 1;
