/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdio.h>

#include "section-catalog.h"

/* The catalog as ncu --list-sections and --list-sets print it, byte for byte: fixed-width columns,
 * long file names cut at the front ("..."), long cells wrapped at the column width. */

int section_listing_sections(const SectionCatalog *c, FILE *f);

/* estimate(set, userdata) gives the "Estimated Metrics" column (ncu's count without a GPU). */
int section_listing_sets(const SectionCatalog *c, size_t (*estimate)(const SectionSet *set, void *userdata),
                void *userdata, FILE *f);
