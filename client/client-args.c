/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nvprofilectl's command line, as the tables of client-options.c and client-verbs.c say: options into
 * arg, then the verb: its command, its number of arguments and the options it takes, each usage error
 * in words with exit status 2. */

#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>

#include "client-args.h"
#include "log.h"
#include "string-util.h"
#include "strv.h"

ClientOptions arg = CLIENT_OPTIONS_INIT;

static int parse_json_mode(const char *s, JsonMode *ret)
{
        if (!s) /* bare --json */
                *ret = isatty(STDOUT_FILENO) ? JSON_PRETTY : JSON_SHORT;
        else if (streq(s, "pretty"))
                *ret = JSON_PRETTY;
        else if (streq(s, "short"))
                *ret = JSON_SHORT;
        else if (streq(s, "off"))
                *ret = JSON_OFF;
        else
                return -EINVAL;
        return 0;
}

/* "2", "0.5", "1.000001": seconds with at most 6 decimals, above 0 and at most a day, in microseconds. */
static int parse_seconds(const char *s, uint64_t *ret)
{
        uint64_t sec = 0, usec = 0;
        const char *p = s;

        if (*p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                sec = sec * 10 + (uint64_t) (*p - '0');
                if (sec > 86400)
                        return -ERANGE;
        }
        if (*p == '.') {
                p++;
                for (uint64_t unit = 100000; *p >= '0' && *p <= '9'; p++, unit /= 10) {
                        if (unit == 0)
                                return -EINVAL;
                        usec += (uint64_t) (*p - '0') * unit;
                }
        }
        usec += sec * 1000000;
        if (*p != '\0' || usec == 0 || usec > UINT64_C(86400) * 1000000)
                return -EINVAL;
        *ret = usec;
        return 0;
}

int usage_error(const char *format, ...)
{
        va_list ap;

        fputs("nvprofilectl: ", stderr);
        va_start(ap, format);
        vfprintf(stderr, format, ap);
        va_end(ap);
        fputs("\n", stderr);
        return -EINVAL;
}

/* "A", "A and B", "A, B and C" (or "or"). */
static char *join_words(char **words, const char *conjunction)
{
        size_t n = strv_length(words), size = 1;
        char *s;

        STRV_FOREACH(w, words)
                size += strlen(*w) + strlen(conjunction) + 2;
        s = calloc(size, 1);
        if (!s)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (i > 0 && i + 1 < n)
                        strcat(s, ", ");
                else if (i > 0) {
                        strcat(s, " ");
                        strcat(s, conjunction);
                        strcat(s, " ");
                }
                strcat(s, words[i]);
        }
        return s;
}

static int enum_index(const char *const *values, const char *value)
{
        for (int i = 0; values[i]; i++)
                if (streq(values[i], value))
                        return i;
        return -EINVAL;
}

/* Stores one option's value in arg, or says why the value is wrong. */
static int store_option(const ClientOption *o, const char *value)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        char *field = (char *) &arg + o->offset;
        int r;

        assert(o);

        if (value && o->valid && !o->valid(value))
                return usage_error("--%s= takes %s, not \"%s\".", o->name, o->takes, esc(&e, value));

        switch (o->store) {
        case STORE_NONE:
                break;
        case STORE_TRUE:
                *(bool *) field = true;
                break;
        case STORE_FALSE:
                *(bool *) field = false;
                break;
        case STORE_STRING:
                *(const char **) field = value;
                break;
        case STORE_STRV:
                if (strv_extend((char ***) field, value) < 0)
                        return log_oom();
                break;
        case STORE_ENUM:
                r = o->enum_from_string ? o->enum_from_string(value) : enum_index(o->values, value);
                if (r < 0)
                        return usage_error("--%s= takes %s, not \"%s\".", o->name, o->takes, esc(&e, value));
                *(int *) field = r;
                break;
        case STORE_SECONDS:
                if (parse_seconds(value, (uint64_t *) field) < 0)
                        return usage_error("--%s= takes %s, not \"%s\".", o->name, o->takes, esc(&e, value));
                break;
        case STORE_JSON:
                if (parse_json_mode(value, (JsonMode *) field) < 0)
                        return usage_error("--%s= takes %s, not \"%s\".", o->name, o->takes, esc(&e, value));
                break;
        }
        return 0;
}

/* What getopt_long() could not take: an option without its value, an abbreviation of several options,
 * or one that does not exist (with the closest that does). */
static int option_error(const char *given)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        const char *names[_OPT_MAX], *closest;
        _cleanup_strv_free_ char **prefixed = NULL;
        _cleanup_free_ char *name = NULL, *list = NULL;

        if (optopt >= OPTION_BASE && optopt < OPTION_BASE + _OPT_MAX) {
                const ClientOption *o = &client_options[optopt - OPTION_BASE];

                return usage_error("--%s needs a value: --%s=%s.", o->name, o->name, o->metavar);
        }
        if (optopt > 0)
                return usage_error("Unknown option \"-%s\"; see nvprofilectl --help.", esc(&e, (char[]){ optopt, 0 }));

        name = strndup(given + strspn(given, "-"), strcspn(given + strspn(given, "-"), "="));
        if (!name)
                return log_oom();
        for (size_t i = 0; i < _OPT_MAX; i++) {
                char dashed[64];

                names[i] = client_options[i].name;
                (void) snprintf(dashed, sizeof(dashed), "--%s", names[i]);
                if (name[0] != '\0' && startswith(names[i], name) && strv_extend(&prefixed, dashed) < 0)
                        return log_oom();
        }
        if (strv_length(prefixed) > 1) {
                list = join_words(prefixed, "or");
                if (!list)
                        return log_oom();
                return usage_error("\"--%s\" could be %s.", esc(&e, name), list);
        }
        closest = closest_name(name, names, _OPT_MAX);
        if (closest)
                return usage_error("Unknown option \"%s\"; did you mean --%s?", esc(&e, given), closest);
        return usage_error("Unknown option \"%s\"; see nvprofilectl --help.", esc(&e, given));
}

int parse_argv(int argc, char *argv[])
{
        struct option long_options[_OPT_MAX + 1] = { { 0 } };
        char short_options[2 * _OPT_MAX + 1], *s = short_options;
        bool help = false;
        int c, r;

        assert(argc >= 0);
        assert(argv);

        for (size_t i = 0; i < _OPT_MAX; i++) {
                const ClientOption *o = &client_options[i];

                long_options[i] = (struct option){ o->name, o->has_arg, NULL, OPTION_BASE + (int) i };
                if (o->short_name != 0) {
                        *s++ = o->short_name;
                        if (o->has_arg == required_argument)
                                *s++ = ':';
                }
        }
        *s = '\0';

        /* Options may follow the verb ("processes --all"); getopt_long() moves the verb and its arguments
         * to the end. optind = 0 starts afresh: the tests parse several command lines. */
        optind = 0;
        opterr = 0; /* we say it ourselves, escaped */
        while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) >= 0) {
                const ClientOption *o = NULL;

                if (c == '?')
                        return option_error(argv[optind - 1]);
                if (c >= OPTION_BASE)
                        o = &client_options[c - OPTION_BASE];
                else
                        for (size_t i = 0; i < _OPT_MAX && !o; i++)
                                if (client_options[i].short_name == c)
                                        o = &client_options[i];
                assert(o);

                if (o == &client_options[OPT_HELP])
                        help = true;
                else if (o == &client_options[OPT_VERSION]) {
                        printf("nvprofilectl %s\n", PACKAGE_VERSION);
                        return 0;
                }
                r = store_option(o, o->has_arg == no_argument ? NULL : optarg);
                if (r < 0)
                        return r;
        }

        if (arg.bus_address && arg.session)
                return usage_error("--bus= and --user cannot be combined: --user means the session bus.");
        if (help) /* of the verb and command named, if any: "report summary --help" */
                return client_help(argv + optind, (size_t) (argc - optind));
        return 1;
}

void client_options_done(ClientOptions *o)
{
        assert(o);

        for (size_t i = 0; i < _OPT_MAX; i++)
                if (client_options[i].store == STORE_STRV)
                        strv_free(*(char ***) ((char *) o + client_options[i].offset));
        *o = (ClientOptions) CLIENT_OPTIONS_INIT;
}

/* "report summary", or "status". */
static const char *spec_name(const VerbSpec *verb, const VerbSpec *command, char buf[static 64])
{
        if (!command)
                return verb->name;
        (void) snprintf(buf, 64, "%s %s", verb->name, command->name);
        return buf;
}

/* Exit status 2 with what is missing or too much, in words, and the usage line. */
static int check_arguments(const char *name, const VerbSpec *spec, unsigned n_args, char **args)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };

        if (n_args < spec->min_args)
                return usage_error("%s needs %s: nvprofilectl %s %s", name, spec->needs, name, spec->args);
        if (n_args <= spec->max_args)
                return 0;
        if (spec->max_args == 0)
                return usage_error("%s takes no arguments, got \"%s\".", name, esc(&e, args[0]));
        return usage_error("%s takes at most %u argument%s (nvprofilectl %s %s), got %u.", name, spec->max_args,
                        spec->max_args == 1 ? "" : "s", name, spec->args, n_args);
}

/* Every verb and command that takes option id, as "A, B and C". */
static char *takers(OptionId id)
{
        _cleanup_strv_free_ char **names = NULL;
        char buf[64];

        for (size_t i = 0; i < client_n_verbs; i++) {
                const VerbSpec *v = &client_verbs[i];

                if (verb_spec_takes(v, id) && strv_extend(&names, v->name) < 0)
                        return NULL;
                for (size_t j = 0; j < v->n_commands; j++)
                        if (verb_spec_takes(&v->commands[j], id) &&
                                        strv_extend(&names, spec_name(v, &v->commands[j], buf)) < 0)
                                return NULL;
        }
        return join_words(names, "and");
}

static int check_options(const char *name, const VerbSpec *spec)
{
        for (OptionId id = _OPT_GLOBAL_MAX; id < _OPT_MAX; id++) {
                _cleanup_free_ char *list = NULL;

                if (!client_option_given(&client_options[id], &arg) || verb_spec_takes(spec, id))
                        continue;
                list = takers(id);
                if (!list)
                        return log_oom();
                return usage_error("--%s is an option of %s, not of %s; see nvprofilectl %s --help.",
                                client_options[id].name, list, name, name);
        }
        return 0;
}

/* "Unknown verb "x"; did you mean ...?" among specs. */
static int unknown_name(const char *what, const char *given, const VerbSpec *specs, size_t n, const char *help)
{
        _cleanup_(escape_pool_done) EscapePool e = { 0 };
        _cleanup_free_ const char **names = calloc(n, sizeof(const char *));
        const char *closest;

        if (!names)
                return log_oom();
        for (size_t i = 0; i < n; i++)
                names[i] = specs[i].name;
        closest = closest_name(given, names, n);
        if (closest)
                return usage_error("Unknown %s \"%s\"; did you mean %s?", what, esc(&e, given), closest);
        return usage_error("Unknown %s \"%s\"; see %s.", what, esc(&e, given), help);
}

int dispatch_verb(int argc, char *argv[])
{
        const VerbSpec *verb, *command = NULL;
        char buf[64], help[96];
        const char *name;
        int n_before = 1, r;

        if (argc < 1) {
                (void) usage_error("Missing verb: nvprofilectl VERB [ARGS...]; see nvprofilectl --help.");
                return EXIT_USAGE;
        }
        verb = verb_spec_find(client_verbs, client_n_verbs, argv[0]);
        if (!verb) {
                r = unknown_name("verb", argv[0], client_verbs, client_n_verbs, "nvprofilectl --help");
                return r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
        }
        (void) snprintf(help, sizeof(help), "nvprofilectl %s --help", verb->name);
        if (verb->n_commands > 0 && argc < 2 && !verb->commands_optional) {
                _cleanup_free_ char *list = NULL;
                _cleanup_free_ const char **names = calloc(verb->n_commands + 1, sizeof(const char *));

                if (!names)
                        return log_oom();
                for (size_t i = 0; i < verb->n_commands; i++)
                        names[i] = verb->commands[i].name;
                list = join_words((char **) names, "or");
                if (!list)
                        return log_oom();
                (void) usage_error("%s needs a command: %s; see %s.", verb->name, list, help);
                return EXIT_USAGE;
        }
        if (verb->n_commands > 0 && argc >= 2) {
                command = verb_spec_find(verb->commands, verb->n_commands, argv[1]);
                if (!command) {
                        char what[64];

                        (void) snprintf(what, sizeof(what), "%s command", verb->name);
                        r = unknown_name(what, argv[1], verb->commands, verb->n_commands, help);
                        return r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
                }
                n_before = 2;
        }
        name = spec_name(verb, command, buf);
        r = check_arguments(name, command ? command : verb, (unsigned) (argc - n_before), argv + n_before);
        if (r >= 0)
                r = check_options(name, command ? command : verb);
        if (r < 0)
                return r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;

        r = verb->run(argc, argv);
        return r < 0 ? EXIT_FAILURE : r;
}

int client_run(int argc, char *argv[])
{
        int r;

        /* The shells' completion scripts ask "nvprofilectl __complete -- WORDS...". */
        if (argc >= 2 && streq(argv[1], "__complete")) {
                int skip = argc >= 3 && streq(argv[2], "--") ? 3 : 2;

                return client_complete(argc - skip, argv + skip) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
        }

        r = parse_argv(argc, argv);
        if (r <= 0) {
                client_options_done(&arg);
                return r == 0 ? EXIT_SUCCESS : r == -EINVAL ? EXIT_USAGE : EXIT_FAILURE;
        }

        r = dispatch_verb(argc - optind, argv + optind);
        client_options_done(&arg);
        return r;
}
