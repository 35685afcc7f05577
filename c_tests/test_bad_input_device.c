/*
 * Bad-input suite (bad_input.h): dmls_device_create and dmls_device_check_feature_support.
 * Most cases are rows of tables: device_cases' `bad` and k_query_cases.
 */
#include "bad_input.h"

/* ------------------------------------------------------------------------------------------ */
/* Device creation and feature queries                                                        */

static void device_cases(void) {
    /* Bad device descs: each row is checked for its code and message, and *device stays
       untouched. A row with a kind starts a kind of invalid call. */
    static const struct {
        const char *kind;
        dmls_device_desc desc; /* feature_level, thread_count, flags */
        HRESULT want;
        const char *needle;
    } bad[] = {
        {"dmls_device_create: unknown feature level",
         {0x1234u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x0FFFu, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x6401u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x10000u, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0xFFFFFFFFu, 1, 0}, E_INVALIDARG, "feature_level"},
        {NULL, {0x1100u, 1, 0}, E_INVALIDARG, "feature_level"},
        {"dmls_device_create: well-formed level above 6_4",
         {0x6500u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {NULL, {0x7000u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {NULL, {0xFF00u, 1, 0}, DXGI_ERROR_UNSUPPORTED, "6_4"},
        {"dmls_device_create: unknown flags", {0, 1, 0x2u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0x3u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0x80000000u}, E_INVALIDARG, "flags"},
        {NULL, {0, 1, 0xFFFFFFFFu}, E_INVALIDARG, "flags"},
        {"dmls_device_create: too many threads",
         {0, DMLS_MAX_THREAD_COUNT + 1, 0}, E_INVALIDARG, "thread_count"},
        {NULL, {0, 0xFFFFFFFFu, 0}, E_INVALIDARG, "thread_count"},
    };
    size_t i;

    CASE("dmls_device_create: NULL device");
    check_hr("NULL out pointer", dmls_device_create(NULL, NULL), E_POINTER, "device");

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        dmls_device *dev = SENTINEL_DEV;
        char what[96];
        if (bad[i].kind != NULL) {
            CASE(bad[i].kind);
        }
        snprintf(what, sizeof what, "level 0x%X, %u threads, flags 0x%X",
                 (unsigned)bad[i].desc.feature_level, (unsigned)bad[i].desc.thread_count,
                 (unsigned)bad[i].desc.flags);
        check_hr(what, dmls_device_create(&bad[i].desc, &dev), bad[i].want, bad[i].needle);
        check_true("device untouched", dev == SENTINEL_DEV);
    }
}

/* The support structs the feature queries write, between canaries that must stay 0xCD. */
static struct {
    uint32_t before;
    DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT data;
    uint32_t after;
} g_types_support;
static struct {
    uint32_t before;
    DML_FEATURE_DATA_FEATURE_LEVELS data;
    uint32_t after;
} g_levels_support;

static void support_untouched(const char *what) {
    check_true(what, g_types_support.before == 0xCDCDCDCDu &&
                         g_types_support.after == 0xCDCDCDCDu &&
                         (uint32_t)g_types_support.data.IsSupported == 0xCDCDCDCDu &&
                         g_levels_support.before == 0xCDCDCDCDu &&
                         g_levels_support.after == 0xCDCDCDCDu &&
                         g_levels_support.data.MaxSupportedFeatureLevel == 0xCDCDCDCDu);
}

/* The levels a DML_FEATURE_FEATURE_LEVELS query asks about. */
typedef struct {
    UINT count;
    const DML_FEATURE_LEVEL *levels;
} level_list;

static const DML_FEATURE_LEVEL k_three_levels[3] = {DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_4_0,
                                                    DML_FEATURE_LEVEL_6_4};
static const DML_FEATURE_LEVEL k_above_4_0[2] = {DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_6_4};
/* A level newer than 6_4 (as a program built with a newer DirectML.h lists): above every
   device's, not an invalid value. */
static const DML_FEATURE_LEVEL k_newer[1] = {(DML_FEATURE_LEVEL)0x6500u};
static const level_list k_valid_levels = {3, k_three_levels};

/* One dmls_device_check_feature_support call on a DML_FEATURE_LEVEL_4_0 device (or NULL) with
   the feature's own query and support structs (or NULL), and what it must return; a failure
   leaves the support structs untouched. QT, QL, ST and SL are the right sizes. */
typedef struct {
    const char *kind; /* non-NULL: starts a kind of invalid call */
    int device;       /* PASSED or NULL_ARG */
    DML_FEATURE feature;
    UINT query_size;
    int query;
    UINT support_size;
    int support;
    const level_list *levels; /* the levels asked about (NULL: 3_0, 4_0, 6_4) */
    HRESULT want;
    const char *needle;
} query_case;

enum { NULL_ARG = 0, PASSED = 1 };
#define F_TYPES DML_FEATURE_TENSOR_DATA_TYPE_SUPPORT
#define F_LEVELS DML_FEATURE_FEATURE_LEVELS
#define QT ((UINT)sizeof(DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT))
#define QL ((UINT)sizeof(DML_FEATURE_QUERY_FEATURE_LEVELS))
#define ST ((UINT)sizeof(DML_FEATURE_DATA_TENSOR_DATA_TYPE_SUPPORT))
#define SL ((UINT)sizeof(DML_FEATURE_DATA_FEATURE_LEVELS))
#define LEVELS(count, levels) (&(const level_list){count, levels})

static const query_case k_query_cases[] = {
    {"check_feature_support: NULL device",
     NULL_ARG, F_TYPES, QT, PASSED, ST, PASSED, NULL, E_POINTER, "device"},
    {"check_feature_support: NULL query",
     PASSED, F_TYPES, QT, NULL_ARG, ST, PASSED, NULL, E_POINTER, "query"},
    {NULL, PASSED, F_LEVELS, QL, NULL_ARG, SL, PASSED, NULL, E_POINTER, "query"},
    {"check_feature_support: NULL support",
     PASSED, F_TYPES, QT, PASSED, ST, NULL_ARG, NULL, E_POINTER, "support"},
    {NULL, PASSED, F_LEVELS, QL, PASSED, SL, NULL_ARG, NULL, E_POINTER, "support"},
    {"check_feature_support: wrong query_size",
     PASSED, F_TYPES, 0, PASSED, ST, PASSED, NULL, E_INVALIDARG, "query_size"},
    {NULL, PASSED, F_LEVELS, QL - 1, PASSED, SL, PASSED, NULL, E_INVALIDARG, "query_size"},
    {NULL, PASSED, F_LEVELS, 0xFFFFFFFFu, PASSED, SL, PASSED, NULL, E_INVALIDARG, "query_size"},
    {"check_feature_support: wrong support_size",
     PASSED, F_TYPES, QT, PASSED, 8, PASSED, NULL, E_INVALIDARG, "support_size"},
    {NULL, PASSED, F_LEVELS, QL, PASSED, 0, PASSED, NULL, E_INVALIDARG, "support_size"},
    /* An unknown feature gets the data-type structs. */
    {"check_feature_support: unknown feature",
     PASSED, 2, QT, PASSED, ST, PASSED, NULL, DXGI_ERROR_UNSUPPORTED, "feature"},
    {NULL, PASSED, 0xFFFFFFFFu, QT, PASSED, ST, PASSED, NULL, DXGI_ERROR_UNSUPPORTED, "feature"},
    {"check_feature_support: RequestedFeatureLevelCount 0",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(0, k_three_levels), E_INVALIDARG,
     "RequestedFeatureLevelCount"},
    {"check_feature_support: NULL RequestedFeatureLevels",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(2, NULL), E_POINTER,
     "RequestedFeatureLevels"},
    {"check_feature_support: every requested level above the device's",
     PASSED, F_LEVELS, QL, PASSED, SL, PASSED, LEVELS(2, k_above_4_0), DXGI_ERROR_UNSUPPORTED,
     "4_0"},
    {"check_feature_support: only a level newer than 6_4", PASSED, F_LEVELS, QL, PASSED, SL,
     PASSED, LEVELS(1, k_newer), DXGI_ERROR_UNSUPPORTED, "4_0"},
};

/* Asks `dev` (at 4_0) for the highest of levels `a` and `b`; checks the answer is `want`. */
static void max_level_of(dmls_device *dev, const char *what, DML_FEATURE_LEVEL a,
                         DML_FEATURE_LEVEL b, DML_FEATURE_LEVEL want) {
    const DML_FEATURE_LEVEL levels[2] = {a, b};
    DML_FEATURE_QUERY_FEATURE_LEVELS lq = {2, levels};
    HRESULT hr =
        dmls_device_check_feature_support(dev, F_LEVELS, QL, &lq, SL, &g_levels_support.data);
    check_hr(what, hr, S_OK, NULL);
    check_true(what, g_levels_support.data.MaxSupportedFeatureLevel == want);
}

static void feature_cases(void) {
    dmls_device *dev = make_device(DML_FEATURE_LEVEL_4_0, 0);
    DML_FEATURE_QUERY_TENSOR_DATA_TYPE_SUPPORT tq;
    DML_FEATURE_QUERY_FEATURE_LEVELS lq;
    HRESULT hr;
    size_t i;
    memset(&g_types_support, 0xCD, sizeof g_types_support);
    memset(&g_levels_support, 0xCD, sizeof g_levels_support);
    tq.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;

    for (i = 0; i < sizeof k_query_cases / sizeof k_query_cases[0]; i++) {
        const query_case *c = &k_query_cases[i];
        const int levels_query = c->feature == F_LEVELS;
        void *support =
            levels_query ? (void *)&g_levels_support.data : (void *)&g_types_support.data;
        char what[64];
        if (c->kind != NULL) {
            CASE(c->kind);
        }
        lq.RequestedFeatureLevelCount = (c->levels != NULL ? c->levels : &k_valid_levels)->count;
        lq.RequestedFeatureLevels = (c->levels != NULL ? c->levels : &k_valid_levels)->levels;
        snprintf(what, sizeof what, "k_query_cases[%u]", (unsigned)i);
        hr = dmls_device_check_feature_support(
            c->device ? dev : NULL, c->feature, c->query_size,
            c->query ? (levels_query ? (const void *)&lq : (const void *)&tq) : NULL,
            c->support_size, c->support ? support : NULL);
        check_hr(what, hr, c->want, c->needle);
        support_untouched(what);
    }

    CASE("check_feature_support: a requested level that is not a DML_FEATURE_LEVEL");
    {
        /* Exactly two entries on the heap: a reader must not go past them. */
        DML_FEATURE_LEVEL *two = (DML_FEATURE_LEVEL *)malloc(2 * sizeof *two);
        two[0] = DML_FEATURE_LEVEL_3_0;
        two[1] = 0x3300u;
        lq.RequestedFeatureLevelCount = 2;
        lq.RequestedFeatureLevels = two;
        hr = dmls_device_check_feature_support(dev, F_LEVELS, QL, &lq, SL, &g_levels_support.data);
        check_hr("level 0x3300", hr, E_INVALIDARG, "RequestedFeatureLevels[1]");
        free(two);
    }
    support_untouched("support untouched");

    /* Positive controls: the same structs work when valid; a level newer than 6_4 is above the
       device's, so the answer is the highest of the others. */
    max_level_of(dev, "valid level query: 3_0", DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_6_4,
                 DML_FEATURE_LEVEL_3_0);
    max_level_of(dev, "0x6500 beside 3_0: 3_0", (DML_FEATURE_LEVEL)0x6500u, DML_FEATURE_LEVEL_3_0,
                 DML_FEATURE_LEVEL_3_0);
    tq.DataType = 99;
    hr = dmls_device_check_feature_support(dev, F_TYPES, QT, &tq, ST, &g_types_support.data);
    check_hr("unknown type query is answered, not an error", hr, S_OK, NULL);
    check_true("unknown type unsupported", g_types_support.data.IsSupported == 0);
    dmls_device_release(dev);
}

int main(void) {
    printf("directml_subset %s: bad-input suite, devices and feature queries\n", dmls_version());

    device_cases();
    feature_cases();

    return bad_input_finish("test_bad_input_device", 16);
}
