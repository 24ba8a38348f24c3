/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "bus-address.h"
#include "macro.h"

int bus_open_address(const char *address, sd_bus **ret)
{
        _cleanup_(sd_bus_unrefp) sd_bus *bus = NULL;
        int r;

        assert(address);
        assert(ret);

        r = sd_bus_new(&bus);
        if (r < 0)
                return r;
        r = sd_bus_set_address(bus, address);
        if (r < 0)
                return r;
        r = sd_bus_set_bus_client(bus, true);
        if (r < 0)
                return r;
        r = sd_bus_start(bus);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(bus);
        return 0;
}
