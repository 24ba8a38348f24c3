/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-util.h"
#include "report-protocol.h"
#include "string-util.h"

void ncu_wire_init(NcuWire *w, size_t max)
{
        assert(w);
        *w = (NcuWire){ .max = max };
}

void ncu_wire_done(NcuWire *w)
{
        assert(w);
        w->data = mfree(w->data);
        w->size = w->allocated = 0;
}

int ncu_wire_finish(const NcuWire *w)
{
        assert(w);
        return w->error;
}

static uint8_t *wire_grow(NcuWire *w, size_t n)
{
        uint8_t *p;

        if (w->error < 0)
                return NULL;
        if (n > w->max || w->size > w->max - n) {
                w->error = -E2BIG;
                return NULL;
        }
        if (GREEDY_REALLOC(w->data, w->allocated, w->size + n) < 0) {
                w->error = -ENOMEM;
                return NULL;
        }
        p = w->data + w->size;
        w->size += n;
        return p;
}

static void wire_put(NcuWire *w, const void *v, size_t n)
{
        uint8_t *p = wire_grow(w, n);

        if (p)
                memcpy(p, v, n);
}

void ncu_wire_put_u8(NcuWire *w, uint8_t v)
{
        wire_put(w, &v, sizeof(v));
}

void ncu_wire_put_bool(NcuWire *w, bool v)
{
        ncu_wire_put_u8(w, v ? 1 : 0);
}

void ncu_wire_put_u32(NcuWire *w, uint32_t v)
{
        wire_put(w, &v, sizeof(v));
}

void ncu_wire_put_i32(NcuWire *w, int32_t v)
{
        wire_put(w, &v, sizeof(v));
}

void ncu_wire_put_u64(NcuWire *w, uint64_t v)
{
        wire_put(w, &v, sizeof(v));
}

void ncu_wire_put_double(NcuWire *w, double v)
{
        wire_put(w, &v, sizeof(v));
}

void ncu_wire_put_encoded(NcuWire *w, const void *data, size_t size)
{
        wire_put(w, data, size);
}

/* U+FFFD, which stands for each byte that starts no valid sequence. */
static const char replacement[] = "\xef\xbf\xbd";

void ncu_wire_put_string(NcuWire *w, const char *s)
{
        size_t n, out = 0, token;

        s = strempty(s);
        n = strlen(s);
        if (n > UINT32_MAX / 3) {
                w->error = w->error < 0 ? w->error : -E2BIG;
                return;
        }
        token = w->size;
        ncu_wire_put_u32(w, 0);
        for (size_t i = 0; i < n && w->error >= 0;) {
                size_t k = utf8_sequence_length(s + i, n - i);

                if (k == 0) {
                        wire_put(w, replacement, strlen(replacement));
                        out += strlen(replacement);
                        i++;
                } else {
                        wire_put(w, s + i, k);
                        out += k;
                        i += k;
                }
        }
        ncu_wire_put_u8(w, 0);
        if (w->error >= 0) {
                uint32_t len = (uint32_t) out;
                memcpy(w->data + token, &len, sizeof(len));
        }
}

size_t ncu_wire_open_array(NcuWire *w)
{
        size_t token = w->size;

        ncu_wire_put_u32(w, 0);
        return token;
}

void ncu_wire_close_array(NcuWire *w, size_t token, uint32_t count)
{
        if (w->error < 0)
                return;
        assert(token + sizeof(count) <= w->size);
        memcpy(w->data + token, &count, sizeof(count));
}

void ncu_wire_reader_init(NcuWireReader *r, const void *data, size_t size)
{
        assert(r);
        *r = (NcuWireReader){ .p = data, .left = size };
}

static int wire_get(NcuWireReader *r, void *ret, size_t n)
{
        if (r->left < n)
                return -EBADMSG;
        memcpy(ret, r->p, n);
        r->p += n;
        r->left -= n;
        return 0;
}

int ncu_wire_get_u8(NcuWireReader *r, uint8_t *ret)
{
        return wire_get(r, ret, sizeof(*ret));
}

int ncu_wire_get_bool(NcuWireReader *r, bool *ret)
{
        uint8_t v;
        int k = ncu_wire_get_u8(r, &v);

        if (k < 0)
                return k;
        if (v > 1)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int ncu_wire_get_u32(NcuWireReader *r, uint32_t *ret)
{
        return wire_get(r, ret, sizeof(*ret));
}

int ncu_wire_get_i32(NcuWireReader *r, int32_t *ret)
{
        return wire_get(r, ret, sizeof(*ret));
}

int ncu_wire_get_u64(NcuWireReader *r, uint64_t *ret)
{
        return wire_get(r, ret, sizeof(*ret));
}

int ncu_wire_get_double(NcuWireReader *r, double *ret)
{
        return wire_get(r, ret, sizeof(*ret));
}

int ncu_wire_get_string(NcuWireReader *r, const char **ret)
{
        const char *s;
        uint32_t n;
        int k;

        k = ncu_wire_get_u32(r, &n);
        if (k < 0)
                return k;
        if (r->left < (size_t) n + 1)
                return -EBADMSG;
        s = (const char *) r->p;
        if (s[n] != '\0' || memchr(s, '\0', n) || !utf8_is_valid_n(s, n))
                return -EBADMSG;
        r->p += (size_t) n + 1;
        r->left -= (size_t) n + 1;
        *ret = s;
        return 0;
}

int ncu_wire_get_count(NcuWireReader *r, size_t min_size, uint32_t *ret)
{
        uint32_t n;
        int k;

        assert(min_size > 0);
        k = ncu_wire_get_u32(r, &n);
        if (k < 0)
                return k;
        if (n > r->left / min_size)
                return -EBADMSG;
        *ret = n;
        return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
        while (n > 0) {
                ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

int ncu_frame_send(int fd, uint32_t code, const void *payload, size_t size, const int *fds, size_t n_fds)
{
        NcuFrameHeader h = { .code = code, .size = (uint32_t) size };
        union {
                struct cmsghdr cmsg;
                uint8_t buf[CMSG_SPACE(sizeof(int) * NCU_SERVE_FDS_MAX)];
        } control = { .buf = { 0 } };
        struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
        ssize_t k;

        assert(n_fds <= NCU_SERVE_FDS_MAX);
        if (size > UINT32_MAX)
                return -E2BIG;
        if (n_fds > 0) {
                struct cmsghdr *c;

                msg.msg_control = &control;
                msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
                c = CMSG_FIRSTHDR(&msg);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
                memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
        }
        /* The header carries the descriptors; a stream socket hands them over with its first byte. */
        do
                k = sendmsg(fd, &msg, MSG_NOSIGNAL);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return -errno;
        if ((size_t) k < sizeof(h)) {
                int r = write_all(fd, (const uint8_t *) &h + k, sizeof(h) - (size_t) k);
                if (r < 0)
                        return r;
        }
        return write_all(fd, payload, size);
}

static int read_all(int fd, uint8_t *p, size_t n)
{
        while (n > 0) {
                ssize_t k = read(fd, p, n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        return -EBADMSG;
                p += k;
                n -= (size_t) k;
        }
        return 0;
}

static void take_fds(struct msghdr *msg, int ret_fds[static NCU_SERVE_FDS_MAX], size_t *n)
{
        for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
                size_t m;

                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                        continue;
                m = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < m; i++) {
                        int fd;

                        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                        if (*n < NCU_SERVE_FDS_MAX)
                                ret_fds[(*n)++] = fd;
                        else
                                safe_close(fd); /* more than a request carries: not ours to keep */
                }
        }
}

/* The rest of a frame whose first bytes (k of the header) recvmsg() gave. */
static int receive_rest(int fd, size_t max, NcuFrameHeader *h, size_t k, uint8_t **ret_payload)
{
        _cleanup_free_ uint8_t *payload = NULL;
        int r;

        if (k < sizeof(*h)) {
                r = read_all(fd, (uint8_t *) h + k, sizeof(*h) - k);
                if (r < 0)
                        return r;
        }
        if (h->size > max)
                return -EBADMSG;
        if (h->size > 0) {
                payload = malloc(h->size);
                if (!payload)
                        return -ENOMEM;
                r = read_all(fd, payload, h->size);
                if (r < 0)
                        return r;
        }
        *ret_payload = TAKE_PTR(payload);
        return 0;
}

int ncu_frame_receive(int fd, size_t max, NcuFrameHeader *ret_header, uint8_t **ret_payload,
                int ret_fds[static NCU_SERVE_FDS_MAX])
{
        union {
                struct cmsghdr cmsg;
                uint8_t buf[CMSG_SPACE(sizeof(int) * NCU_SERVE_FDS_MAX)];
        } control = { .buf = { 0 } };
        NcuFrameHeader h;
        struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
        struct msghdr msg = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control)
        };
        uint8_t *payload = NULL;
        size_t n_fds = 0;
        ssize_t k;
        int r;

        for (size_t i = 0; i < NCU_SERVE_FDS_MAX; i++)
                ret_fds[i] = -EBADF;
        do
                k = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return -errno;
        take_fds(&msg, ret_fds, &n_fds);
        r = k == 0 ? 0 : receive_rest(fd, max, &h, (size_t) k, &payload);
        if (r < 0 || k == 0) {
                for (size_t i = 0; i < NCU_SERVE_FDS_MAX; i++)
                        ret_fds[i] = safe_close(ret_fds[i]);
                return r;
        }
        *ret_header = h;
        *ret_payload = payload;
        return 1;
}
