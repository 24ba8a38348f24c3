/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* Product names of PCI devices from the PCI ID database (pci.ids, https://pci-ids.ucw.cz), what lspci
 * shows: "1002:73bf" is "Navi 21 [Radeon RX 6800/6800 XT / 6900 XT]". The format, one entry a line:
 *   # comment
 *   VVVV  vendor name                 (4 hex digits, two spaces)
 *   <TAB>DDDD  device name            (of the vendor above)
 *   <TAB><TAB>SSSS SSSS  subsystem    (ignored)
 *   C CC  class name                  (the class list, at the end: the devices are over)
 * The file comes from a package (pci.ids, hwdata), but it is still outside input: lines are bounded,
 * a line the format does not allow is an error naming it, and a name is valid UTF-8 without control
 * characters before it goes on the bus. */

#define PCI_IDS_LINE_MAX 1024u
#define PCI_IDS_FILE_MAX (16u * 1024u * 1024u)
/* Where Debian's pci.ids and hwdata packages put it, in that order. */
#define PCI_IDS_PATHS "/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"

/* Looks vendor:device up in text (size bytes, not NUL-terminated). Returns 1 with *ret_name (the caller
 * frees it), 0 when not listed, -EBADMSG with *ret_line (1-based) at a malformed or overlong line, or at a
 * matching line whose name is not valid UTF-8 or holds a control character, -ENOMEM. */
int pci_ids_find(const char *text, size_t size, uint16_t vendor, uint16_t device, char **ret_name, unsigned *ret_line);

/* The same on a file: path, or when NULL the first of PCI_IDS_PATHS that exists. A regular file of at
 * most PCI_IDS_FILE_MAX bytes. -ENOENT when there is none; errors are logged with the file and line. */
int pci_ids_lookup(const char *path, uint16_t vendor, uint16_t device, char **ret_name);
