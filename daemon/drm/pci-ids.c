/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "fd-util.h"
#include "fileio.h"
#include "log.h"
#include "pci-ids.h"
#include "string-util.h"

/* "XXXX  name" at s (len bytes): the id and where the name starts; false when it is not that. */
static bool parse_entry(const char *s, size_t len, uint16_t *ret_id, const char **ret_name, size_t *ret_name_len)
{
        unsigned id = 0;

        if (len < 7 || s[4] != ' ' || s[5] != ' ')
                return false;
        for (unsigned i = 0; i < 4; i++) {
                int d = unhexchar(s[i]);
                if (d < 0)
                        return false;
                id = id << 4 | (unsigned) d;
        }
        *ret_id = (uint16_t) id;
        *ret_name = s + 6;
        *ret_name_len = len - 6;
        return true;
}

static bool name_valid(const char *s, size_t len)
{
        if (len == 0 || !utf8_is_valid_n(s, len))
                return false;
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) s[i] < 0x20 || s[i] == 0x7f)
                        return false;
        return true;
}

int pci_ids_find(const char *text, size_t size, uint16_t vendor, uint16_t device, char **ret_name, unsigned *ret_line)
{
        bool in_vendor = false, vendor_seen = false;
        unsigned line = 0;

        assert(text || size == 0);
        assert(ret_name);
        assert(ret_line);

        *ret_name = NULL;
        *ret_line = 0;
        for (size_t at = 0; at < size;) {
                const char *s = text + at, *nl = memchr(s, '\n', size - at), *name;
                size_t len = nl ? (size_t) (nl - s) : size - at, name_len;
                uint16_t id;

                at += len + (nl ? 1 : 0);
                line++;
                *ret_line = line;
                if (len > PCI_IDS_LINE_MAX || memchr(s, '\0', len))
                        return -EBADMSG;
                if (len == 0 || s[0] == '#')
                        continue;
                if (len >= 2 && s[0] == 'C' && s[1] == ' ')
                        break; /* the class list: no device follows */
                if (len >= 2 && s[0] == '\t' && s[1] == '\t') {
                        if (!vendor_seen)
                                return -EBADMSG; /* a subsystem of no device */
                        continue;
                }
                if (s[0] == '\t') {
                        if (!vendor_seen || !parse_entry(s + 1, len - 1, &id, &name, &name_len))
                                return -EBADMSG;
                        if (!in_vendor || id != device)
                                continue;
                        if (!name_valid(name, name_len))
                                return -EBADMSG;
                        *ret_name = strndup(name, name_len);
                        return *ret_name ? 1 : -ENOMEM;
                }
                if (!parse_entry(s, len, &id, &name, &name_len))
                        return -EBADMSG;
                vendor_seen = true;
                /* Vendors are listed once, in order: past ours, the device is not listed. */
                if (in_vendor)
                        break;
                in_vendor = id == vendor;
        }
        *ret_line = 0;
        return 0;
}

int pci_ids_lookup(const char *path, uint16_t vendor, uint16_t device, char **ret_name)
{
        static const char *const defaults[] = { PCI_IDS_PATHS };
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t size = 0;
        unsigned line;
        int r;

        assert(ret_name);

        *ret_name = NULL;
        if (path)
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        else
                for (size_t i = 0; i < ELEMENTSOF(defaults) && fd < 0; i++) {
                        path = defaults[i];
                        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
                }
        if (fd < 0)
                return -errno;
        r = read_full_fd(fd, PCI_IDS_FILE_MAX, &text, &size);
        if (r < 0)
                return log_warning_errno(r, "Cannot read the PCI ID database %s", path);
        r = pci_ids_find(text, size, vendor, device, ret_name, &line);
        if (r == -EBADMSG)
                return log_warning_errno(r, "%s:%u: not a line of the PCI ID database format", path, line);
        return r;
}
