/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Profiles interface: edits of the system's rc files and previews of any edit. Marshalling only:
 * what an edit does, and what it may touch, is manager-edit.c's. */

#include "bus-polkit.h"
#include "manager-edit.h"
#include "string-util.h"
#include "strv.h"

#define EDIT_FLAG_DRY_RUN UINT64_C(1)
#define CHANGE_SIGNATURE "(uussss)"

/* The arguments of an edit method, read from the message (which owns the strings). */
typedef struct EditArgs {
        ManagerEditRequest req;
        RcEditSetting *settings;
        char **unset;
        uint64_t flags;
} EditArgs;

static void edit_args_done(EditArgs *a)
{
        free(a->settings);
        strv_free(a->unset);
}

static int read_settings(sd_bus_message *m, EditArgs *a)
{
        const char *key, *value;
        size_t allocated = 0;
        int r;

        r = sd_bus_message_enter_container(m, 'a', "(ss)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_read(m, "(ss)", &key, &value)) > 0) {
                /* Bounded here too, before anything is kept: manager_edit_system() refuses the rest. */
                if (a->req.edit.n_settings > MANAGER_EDIT_SETTINGS_MAX)
                        return -E2BIG;
                if (GREEDY_REALLOC(a->settings, allocated, a->req.edit.n_settings + 1) < 0)
                        return -ENOMEM;
                a->settings[a->req.edit.n_settings++] = (RcEditSetting){ key, value };
        }
        if (r < 0)
                return r;
        a->req.edit.settings = a->settings;
        return sd_bus_message_exit_container(m);
}

static int read_unset(sd_bus_message *m, EditArgs *a)
{
        int r;

        r = sd_bus_message_read_strv(m, &a->unset);
        if (r < 0)
                return r;
        a->req.edit.unset = a->unset;
        a->req.edit.n_unset = strv_length(a->unset);
        return 0;
}

static size_t position_index(int32_t position)
{
        return position < 0 ? SIZE_MAX : (size_t) position;
}

static const char *empty_to_null(const char *s)
{
        return isempty(s) ? NULL : s;
}

/* Reads the arguments of whichever edit method m calls. */
static int read_edit_args(sd_bus_message *m, EditArgs *a)
{
        const char *member = sd_bus_message_get_member(m);
        const char *file = NULL, *rule = NULL, *pattern = NULL, *profile = NULL;
        int32_t position = -1;
        int r;

        r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;

        if (streq(member, "AddRule")) {
                a->req.edit.operation = RC_EDIT_ADD_RULE;
                r = sd_bus_message_read(m, "siss", &file, &position, &pattern, &profile);
                if (r >= 0)
                        r = read_settings(m, a);
        } else if (streq(member, "UpdateRule")) {
                a->req.edit.operation = RC_EDIT_UPDATE_RULE;
                r = sd_bus_message_read(m, "sss", &rule, &pattern, &profile);
                if (r >= 0)
                        r = read_settings(m, a);
                if (r >= 0)
                        r = read_unset(m, a);
        } else if (streq(member, "RemoveRule")) {
                a->req.edit.operation = RC_EDIT_REMOVE_RULE;
                r = sd_bus_message_read(m, "s", &rule);
        } else if (streq(member, "MoveRule")) {
                a->req.move = true;
                r = sd_bus_message_read(m, "ssi", &rule, &file, &position);
        } else if (streq(member, "AddProfile")) {
                a->req.edit.operation = RC_EDIT_ADD_PROFILE;
                r = sd_bus_message_read(m, "ss", &file, &profile);
                if (r >= 0)
                        r = read_settings(m, a);
        } else if (streq(member, "UpdateProfile")) {
                a->req.edit.operation = RC_EDIT_UPDATE_PROFILE;
                r = sd_bus_message_read(m, "ss", &file, &profile);
                if (r >= 0)
                        r = read_settings(m, a);
                if (r >= 0)
                        r = read_unset(m, a);
        } else if (streq(member, "RemoveProfile")) {
                a->req.edit.operation = RC_EDIT_REMOVE_PROFILE;
                r = sd_bus_message_read(m, "ss", &file, &profile);
        } else
                return -EOPNOTSUPP;
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "t", &a->flags);
        if (r < 0)
                return r;
        if (a->flags & ~EDIT_FLAG_DRY_RUN)
                return -EINVAL;

        a->req.file = empty_to_null(file);
        a->req.rule = empty_to_null(rule);
        a->req.edit.pattern = empty_to_null(pattern);
        a->req.edit.profile = empty_to_null(profile);
        a->req.edit.index = position_index(position);
        a->req.dry_run = a->flags & EDIT_FLAG_DRY_RUN;
        return 0;
}

static int append_changes(sd_bus_message *reply, const ManagerEditChanges *c)
{
        int r;

        r = sd_bus_message_open_container(reply, 'a', CHANGE_SIGNATURE);
        if (r < 0)
                return r;
        for (size_t i = 0; i < c->n_items; i++) {
                const ManagerEditChange *x = &c->items[i];

                r = sd_bus_message_append(reply, CHANGE_SIGNATURE, (uint32_t) x->pid, (uint32_t) x->uid, x->comm,
                                x->key, strempty(x->before), strempty(x->after));
                if (r < 0)
                        return r;
        }
        return sd_bus_message_close_container(reply);
}

/* An edit's reply: the rule (as named now), the diff and the changes. */
static int reply_edit_result(sd_bus_message *m, const ManagerEditResult *result)
{
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "ss", strempty(result->rule_id), result->diff);
        if (r < 0)
                return r;
        r = append_changes(reply, &result->changes);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int reply_edit_error(sd_bus_error *error, int r, const char *message)
{
        const char *what = message ? message : strerror(-r);

        switch (-r) {
        case EPERM:
        case EACCES:
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "%s", what);
        case E2BIG:
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "%s", what);
        case ESTALE:
                return sd_bus_error_setf(error, BUS_ERROR_FILE_CHANGED, "%s", what);
        case ENOMEM:
                return r;
        default:
                return sd_bus_error_setf(error, BUS_ERROR_EDIT_REFUSED, "%s", what);
        }
}

/* Refuses a request that cannot be read or is out of any edit's bounds. */
static int reply_bad_request(sd_bus_error *error, int r, const char *message)
{
        if (r == -E2BIG && !message)
                return sd_bus_error_setf(error, BUS_ERROR_LIMITS_EXCEEDED, "at most %u settings per edit",
                                MANAGER_EDIT_SETTINGS_MAX);
        if (!message)
                return bus_reply_errno(error, r == -EOPNOTSUPP ? r : -EINVAL, "edit arguments");
        return reply_edit_error(error, r, message);
}

static int edit_run(BusContext *c, sd_bus_message *m, sd_bus_error *error)
{
        _cleanup_(edit_args_done) EditArgs a = { 0 };
        _cleanup_(manager_edit_result_done) ManagerEditResult result = { 0 };
        _cleanup_free_ char *message = NULL;
        UserCreds creds;
        int r;

        r = read_edit_args(m, &a);
        if (r < 0)
                return reply_bad_request(error, r, NULL);
        r = bus_caller_creds(m, &creds);
        if (r < 0)
                return r;

        r = manager_edit_system(c->manager, &creds, &a.req, &result, &message);
        if (r < 0)
                return reply_edit_error(error, r, message);

        return reply_edit_result(m, &result);
}

static int method_edit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_(edit_args_done) EditArgs a = { 0 };
        _cleanup_free_ char *message = NULL;
        int r;

        /* A request out of bounds is refused at once: polkit is asked only about one that may apply, so
         * that one waiting for its answer holds little. */
        r = read_edit_args(m, &a);
        if (r < 0)
                return reply_bad_request(error, r, NULL);
        r = manager_edit_check_request(&a.req, &message);
        if (r < 0)
                return reply_bad_request(error, r, message);
        /* A dry run changes nothing and reads with the caller's own access: anyone may. */
        if (a.req.dry_run)
                return edit_run(userdata, m, error);
        return bus_authorize(userdata, m, POLKIT_ACTION_EDIT_SYSTEM_PROFILES, edit_run, error);
}

/* RevertEdit's arguments, read from the message (which owns the strings). */
typedef struct RevertArgs {
        const char *file, *written, *previous;
        int previous_exists;
        uint64_t flags;
} RevertArgs;

static int read_revert_args(sd_bus_message *m, RevertArgs *a)
{
        int r;

        r = sd_bus_message_rewind(m, true);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "ssbst", &a->file, &a->written, &a->previous_exists, &a->previous, &a->flags);
        if (r < 0)
                return r;
        return a->flags & ~EDIT_FLAG_DRY_RUN ? -EINVAL : 0;
}

static int revert_run(BusContext *c, sd_bus_message *m, sd_bus_error *error)
{
        _cleanup_(manager_edit_result_done) ManagerEditResult result = { 0 };
        _cleanup_free_ char *message = NULL;
        RevertArgs a = { 0 };
        UserCreds creds;
        int r;

        r = read_revert_args(m, &a);
        if (r < 0)
                return reply_bad_request(error, r, NULL);
        r = bus_caller_creds(m, &creds);
        if (r < 0)
                return r;

        r = manager_edit_revert(c->manager, &creds, a.file, a.written, strlen(a.written),
                        a.previous_exists ? a.previous : NULL, strlen(a.previous), a.flags & EDIT_FLAG_DRY_RUN, &result,
                        &message);
        if (r < 0)
                return reply_edit_error(error, r, message);

        return reply_edit_result(m, &result);
}

static int method_revert_edit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        RevertArgs a = { 0 };
        int r;

        r = read_revert_args(m, &a);
        if (r < 0)
                return reply_bad_request(error, r, NULL);
        /* As for the other edits: a dry run needs nothing, a write the same authorisation. */
        if (a.flags & EDIT_FLAG_DRY_RUN)
                return revert_run(userdata, m, error);
        return bus_authorize(userdata, m, POLKIT_ACTION_EDIT_SYSTEM_PROFILES, revert_run, error);
}

static int method_read_system_file(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_free_ char *text = NULL, *message = NULL;
        const char *file;
        size_t size = 0;
        UserCreds creds;
        int r;

        r = sd_bus_message_read(m, "s", &file);
        if (r < 0)
                return r;
        r = bus_caller_creds(m, &creds);
        if (r < 0)
                return r;
        /* Read with the caller's own access, as a dry run reads: no authorisation to ask. */
        r = manager_edit_read_system_file(c->manager, &creds, file, &text, &size, &message);
        if (r < 0)
                return reply_edit_error(error, r, message);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_append(reply, "bs", text != NULL, strempty(text));
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_preview_edit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        BusContext *c = userdata;
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        _cleanup_(manager_edit_changes_done) ManagerEditChanges changes = { 0 };
        _cleanup_free_ char *message = NULL;
        const char *home, *file, *text;
        UserCreds creds;
        int r;

        r = sd_bus_message_read(m, "sss", &home, &file, &text);
        if (r < 0)
                return r;
        r = bus_caller_creds(m, &creds);
        if (r < 0)
                return r;
        r = manager_edit_preview(c->manager, &creds, empty_to_null(home), file, text, strlen(text), &changes, &message);
        if (r < 0)
                return reply_edit_error(error, r, message);

        r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = append_changes(reply, &changes);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

#define EDIT_RESULT SD_BUS_RESULT("s", rule, "s", diff, "a" CHANGE_SIGNATURE, changes)

/* Every edit is open at this level: a dry run needs nothing, a write is authorised by bus_authorize()
 * (root always, others through polkit's edit-system-profiles). ReadSystemFile reads as a dry run does. */
const sd_bus_vtable bus_profiles_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("AddRule",
                        SD_BUS_ARGS("s", file, "i", position, "s", pattern, "s", profile, "a(ss)", settings, "t",
                                        flags),
                        EDIT_RESULT, method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("UpdateRule",
                        SD_BUS_ARGS("s", rule, "s", pattern, "s", profile, "a(ss)", settings, "as", unset, "t", flags),
                        EDIT_RESULT, method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveRule", SD_BUS_ARGS("s", rule, "t", flags), EDIT_RESULT, method_edit,
                        SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("MoveRule", SD_BUS_ARGS("s", rule, "s", file, "i", position, "t", flags), EDIT_RESULT,
                        method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("AddProfile", SD_BUS_ARGS("s", file, "s", name, "a(ss)", settings, "t", flags),
                        EDIT_RESULT, method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("UpdateProfile",
                        SD_BUS_ARGS("s", file, "s", name, "a(ss)", settings, "as", unset, "t", flags), EDIT_RESULT,
                        method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveProfile", SD_BUS_ARGS("s", file, "s", name, "t", flags), EDIT_RESULT,
                        method_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RevertEdit",
                        SD_BUS_ARGS("s", file, "s", written, "b", previous_exists, "s", previous, "t", flags),
                        EDIT_RESULT, method_revert_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("ReadSystemFile", SD_BUS_ARGS("s", file), SD_BUS_RESULT("b", exists, "s", text),
                        method_read_system_file, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PreviewEdit", SD_BUS_ARGS("s", home, "s", file, "s", text),
                        SD_BUS_RESULT("a" CHANGE_SIGNATURE, changes), method_preview_edit, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};
