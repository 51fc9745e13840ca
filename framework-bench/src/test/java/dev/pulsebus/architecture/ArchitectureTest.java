package dev.pulsebus.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The boundaries the Maven graph does not enforce, checked on the compiled main classes of every module of
 * the reactor and on its source folders. It runs in framework-bench because that is the one module whose test
 * classpath holds every other module's classes; the reactor's modules are read from the root {@code pom.xml}
 * (the test runs with framework-bench as its working directory).
 *
 * <p>What the graph already forbids (core importing storage, a module importing the bench) is not repeated
 * here. What it allows is: framework-http has the platforms and the example module on its runtime classpath,
 * a test classpath holds everything, and a dependency added to a POM for one class opens a whole module. So
 * these rules hold whatever the POMs say: adapters reach neither the server, the cluster, storage nor each
 * other; the server and the cluster name no platform; {@code dev.pulsebus.internal} is used from an allow-list
 * per module; no library jar registers a {@code BotModule}; every package is {@code @NullMarked}; no package
 * circle within a module; no package split between modules.
 *
 * <p>References are read from each class file's constant pool (class names, descriptors and generic
 * signatures; string literals are left out), so a rule holds for what the bytecode uses, not for what
 * the sources happen to import: an import used only by Javadoc is not a dependency, and neither is a
 * compile-time constant, which javac copies into the user.
 */
class ArchitectureTest {

    private static final Pattern TYPE = Pattern.compile("(?:^|[L(;)\\[<])(dev/pulsebus/(?:[a-z_][a-z0-9_]*/)*[A-Za-z0-9_$]+)");
    private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
    private static final Pattern NULL_MARKED = Pattern.compile("@(?:org\\.jspecify\\.annotations\\.)?NullMarked\\b");

    /**
     * The platform modules, each with its package. A module named here that is not in the reactor yet is
     * skipped only while its directory does not exist (framework-irc is being written).
     */
    private static final Map<String, String> PLATFORMS = Map.of(
            "framework-onebot", "dev.pulsebus.onebot",
            "framework-telegram", "dev.pulsebus.telegram",
            "framework-irc", "dev.pulsebus.irc");

    /** What no platform reaches: a platform gets the server, the cluster and the KV store through its context. */
    private static final List<String> NOT_FOR_PLATFORMS = List.of("dev.pulsebus.server", "dev.pulsebus.cluster",
            "dev.pulsebus.storage", "dev.pulsebus.bench");

    /**
     * The modules that find the platforms and the example module through {@link java.util.ServiceLoader}, and
     * so must not name them: framework-http has them at runtime scope, where a reference compiles in any test
     * and fails only in a jar without them.
     */
    private static final List<String> PLATFORM_FREE = List.of("framework-http", "framework-cluster");

    /** The example module's package: in the server jar only, found through ServiceLoader. */
    private static final String EXAMPLE = "dev.pulsebus.server.example";

    /**
     * The {@code dev.pulsebus.internal} classes each module may use (framework-core owns the package and is not
     * listed). Tight on purpose: a new use fails until it is added here deliberately, and an entry no longer
     * used fails until it is removed. The example module and {@code *.example} packages use none: they are
     * written as a bot module's author would, against the public API only.
     */
    private static final Map<String, Set<String>> INTERNAL_USE = Map.ofEntries(
            // the runtime makes the module costs' table and the slow traces' registry, for the bus, router and server,
            // and sizes the transcript buffer from the heap
            Map.entry("framework-storage", Set.of("CallCosts", "FailureLog", "HeapShare", "HostName", "Names",
                    "Require", "Shutdown", "SlowTraces", "WriterThread")),
            Map.entry("framework-cluster", Set.of("FailureLog", "Json")),
            Map.entry("framework-adapter", Set.of()),
            Map.entry("framework-netty", Set.of("FailureLog")),
            // actions are written by generators on the pooled JSON buffers
            Map.entry("framework-onebot", Set.of("Backoff", "FailureLog", "Json", "JsonStreaming")),
            Map.entry("framework-telegram", Set.of("Backoff", "FailureLog", "Json", "SlotPool")),
            Map.entry("framework-irc", Set.of()),
            Map.entry("framework-example", Set.of()),
            // the admin API answers the module costs and slow traces; exemplars name a command call's trace; the
            // chat API's recent rooms are sized from the heap
            Map.entry("framework-http", Set.of("CallCosts", "FailureLog", "HeapShare", "HostName", "Json",
                    "JsonStreaming", "LruTable", "Names", "Shutdown", "SlowTraces")),
            // the rows that measure what measuring module costs costs
            Map.entry("framework-bench", Set.of("CallCosts", "Json")));

    /** The one module that registers a {@code BotModule}: the server jar's example module. */
    private static final String BOT_MODULE_SERVICE = "META-INF/services/dev.pulsebus.module.BotModule";

    /**
     * Packages whose package-info does not say {@code @NullMarked} yet, so NullAway does not check them: marking
     * them makes it report what each entry's comment counts, to be fixed with the mark. A package leaves this
     * list when it is marked (the test then says so); none may join it.
     */
    private static final Set<String> NOT_YET_NULL_MARKED = Set.of(
            // 33 NullAway findings across these four (builder fields set after construction, null passed for "none")
            "dev.pulsebus.bus", "dev.pulsebus.command", "dev.pulsebus.event", "dev.pulsebus.pipeline",
            // the bench's suites and harness: about 130 findings across these
            "dev.pulsebus.bench.adapter", "dev.pulsebus.bench.bridge", "dev.pulsebus.bench.cluster",
            "dev.pulsebus.bench.config", "dev.pulsebus.bench.conversation", "dev.pulsebus.bench.event",
            "dev.pulsebus.bench.harness", "dev.pulsebus.bench.http", "dev.pulsebus.bench.module",
            "dev.pulsebus.bench.overall", "dev.pulsebus.bench.router", "dev.pulsebus.bench.startup",
            "dev.pulsebus.bench.storage");

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /** The reactor's modules, from the root pom.xml. */
    private static final List<String> REACTOR = new ArrayList<>();

    /** module -> class name -> the dev.pulsebus classes it references (binary names). */
    private static final Map<String, Map<String, Set<String>>> MODULES = new TreeMap<>();

    /** module -> its main classes' folder or jar on the classpath. */
    private static final Map<String, Path> ROOTS = new TreeMap<>();

    @BeforeAll
    static void readClasses() throws IOException {
        Path pom = ROOT.resolve("pom.xml");
        assertThat(pom).as("the repository's root pom (the test runs in framework-bench)").isRegularFile();
        String xml = Files.readString(pom).replaceAll("(?s)<!--.*?-->", "");
        Matcher m = MODULE.matcher(xml);
        while (m.find()) {
            REACTOR.add(m.group(1));
        }
        assertThat(REACTOR).contains("framework-core", "framework-bench");

        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath().normalize();
            String file = p.getFileName().toString();
            for (String module : REACTOR) {
                boolean classes = p.endsWith(Path.of(module, "target", "classes"));
                boolean jar = file.matches(Pattern.quote(module) + "-\\d.*\\.jar") && !file.endsWith("-tests.jar");
                if (classes || jar) {
                    ROOTS.put(module, p);
                }
            }
        }
        ROOTS.put("framework-bench", Path.of("target", "classes").toAbsolutePath());

        List<String> unchecked = new ArrayList<>();
        for (String module : REACTOR) {
            if (Files.isDirectory(ROOT.resolve(module).resolve("src/main/java")) && !ROOTS.containsKey(module)) {
                unchecked.add(module + " has main code but is not on framework-bench's test classpath: add it to"
                        + " framework-bench/pom.xml's dependencies");
            }
        }
        Set<String> named = new TreeSet<>(PLATFORMS.keySet());
        named.addAll(PLATFORM_FREE);
        named.addAll(INTERNAL_USE.keySet());
        for (String module : named) {
            if (Files.isDirectory(ROOT.resolve(module)) && !ROOTS.containsKey(module)) {
                unchecked.add(module + " exists but is not checked: add it to the root pom.xml's modules and to"
                        + " framework-bench/pom.xml's dependencies");
            }
        }
        assertThat(unchecked).as("modules this test cannot read").isEmpty();

        for (Map.Entry<String, Path> root : ROOTS.entrySet()) {
            MODULES.put(root.getKey(), read(root.getValue()));
        }
        assertThat(MODULES).allSatisfy((module, classes) -> assertThat(classes).as(module).isNotEmpty());
    }

    /** A platform gets what it may use from its PlatformContext; it never reaches past it, nor into another platform. */
    @Test
    void platformsReachNeitherServerClusterStorageNorEachOther() {
        List<String> found = new ArrayList<>();
        PLATFORMS.forEach((module, own) -> {
            if (MODULES.containsKey(module)) {
                List<String> forbidden = new ArrayList<>(NOT_FOR_PLATFORMS);
                PLATFORMS.values().stream().filter(p -> !p.equals(own)).forEach(forbidden::add);
                found.addAll(references(module, forbidden));
            }
        });
        assertThat(found).as("platform classes reaching past the platform SPI").isEmpty();
    }

    /** Neither the server nor the cluster names a platform or the example module: adding a platform is adding a jar. */
    @Test
    void serverAndClusterNameNoPlatform() {
        List<String> forbidden = new ArrayList<>(PLATFORMS.values());
        forbidden.add(EXAMPLE);
        List<String> found = new ArrayList<>();
        for (String module : PLATFORM_FREE) {
            found.addAll(references(module, forbidden));
        }
        assertThat(found).as("server or cluster classes naming a platform (find it through PlatformProvider)")
                .isEmpty();
    }

    @Test
    void internalIsUsedOnlyAsAllowed() {
        List<String> found = new ArrayList<>();
        MODULES.forEach((module, classes) -> {
            if (module.equals("framework-core")) {
                return;
            }
            Set<String> allowed = INTERNAL_USE.get(module);
            if (allowed == null) {
                found.add(module + " has no entry in ArchitectureTest.INTERNAL_USE: add one, listing the"
                        + " dev.pulsebus.internal classes it uses (none if it can)");
                return;
            }
            Set<String> used = new TreeSet<>();
            classes.forEach((name, refs) -> {
                for (String ref : refs) {
                    if (!packageOf(ref).equals("dev.pulsebus.internal")) {
                        continue;
                    }
                    String internal = topLevel(simpleName(ref));
                    used.add(internal);
                    if (isExample(packageOf(name))) {
                        found.add(name + " -> " + ref + ": an example uses the public API only");
                    } else if (!allowed.contains(internal)) {
                        found.add(name + " -> " + ref + ": " + module + " may not use internal." + internal
                                + "; if it is meant, add it deliberately to ArchitectureTest.INTERNAL_USE");
                    }
                }
            });
            for (String stale : allowed) {
                if (!used.contains(stale)) {
                    found.add(module + " no longer uses internal." + stale
                            + ": remove it from ArchitectureTest.INTERNAL_USE");
                }
            }
        });
        assertThat(found).isEmpty();
    }

    /**
     * A jar that registers a {@code BotModule} runs it in every server that has the jar on its classpath: only
     * the example module, which the server jar takes as an optional dependency, does.
     */
    @Test
    void libraryJarsCarryNoBotModuleService() throws IOException {
        List<String> found = new ArrayList<>();
        for (Map.Entry<String, Path> root : ROOTS.entrySet()) {
            boolean has = hasEntry(root.getValue(), BOT_MODULE_SERVICE);
            if (root.getKey().equals("framework-example")) {
                assertThat(has).as("framework-example's own " + BOT_MODULE_SERVICE + " (else this rule reads nothing)")
                        .isTrue();
            } else if (has) {
                found.add(root.getValue() + "!" + BOT_MODULE_SERVICE);
            }
        }
        for (String module : REACTOR) {
            Path source = ROOT.resolve(module).resolve("src/main/resources").resolve(BOT_MODULE_SERVICE);
            if (!module.equals("framework-example") && Files.exists(source)) {
                found.add(ROOT.relativize(source).toString());
            }
        }
        assertThat(found).as("library jars registering a BotModule (move the module to framework-example)").isEmpty();
    }

    /**
     * Every package under {@code src/main/java} of every module in the reactor has a package-info that marks it
     * {@code @NullMarked}, so that NullAway checks it. The archetype's template, consumer-check's outside projects
     * and {@code examples/} are not reactor source folders: they are written as a bot module's author would.
     */
    @Test
    void everyPackageIsNullMarked() throws IOException {
        List<String> found = new ArrayList<>();
        Set<String> marked = new TreeSet<>();
        int packages = 0;
        for (String module : REACTOR) {
            Path src = ROOT.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                continue;
            }
            Set<Path> dirs = new TreeSet<>();
            try (Stream<Path> files = Files.walk(src)) {
                files.filter(f -> f.toString().endsWith(".java") && !f.getFileName().toString().equals("package-info.java"))
                        .forEach(f -> dirs.add(f.getParent()));
            }
            for (Path dir : dirs) {
                packages++;
                String pkg = src.relativize(dir).toString().replace(java.io.File.separatorChar, '.');
                Path info = dir.resolve("package-info.java");
                if (!Files.exists(info)) {
                    found.add(module + ": " + pkg + " has no package-info.java");
                } else if (isNullMarked(Files.readString(info, StandardCharsets.UTF_8))) {
                    marked.add(pkg);
                } else if (!NOT_YET_NULL_MARKED.contains(pkg)) {
                    found.add(module + ": " + pkg + "'s package-info is not @NullMarked");
                }
            }
        }
        for (String pkg : NOT_YET_NULL_MARKED) {
            if (marked.contains(pkg)) {
                found.add(pkg + " is @NullMarked now: remove it from ArchitectureTest.NOT_YET_NULL_MARKED");
            }
        }
        assertThat(packages).as("packages found").isGreaterThan(20);
        assertThat(found).isEmpty();
    }

    @Test
    void noPackageCircleWithinAModule() {
        List<String> circles = new ArrayList<>();
        MODULES.forEach((module, classes) -> {
            Set<String> own = new HashSet<>();
            classes.keySet().forEach(c -> own.add(packageOf(c)));
            Map<String, Set<String>> graph = new TreeMap<>();
            classes.forEach((name, refs) -> {
                String from = packageOf(name);
                Set<String> to = graph.computeIfAbsent(from, k -> new TreeSet<>());
                for (String ref : refs) {
                    String pkg = packageOf(ref);
                    if (!pkg.equals(from) && own.contains(pkg)) {
                        to.add(pkg);
                    }
                }
            });
            for (Set<String> circle : stronglyConnected(graph)) {
                if (circle.size() > 1) {
                    circles.add(module + ": " + circle);
                }
            }
        });
        assertThat(circles).isEmpty();
    }

    /**
     * A package lives in one module: split, it cannot be put on the module path (each jar has an
     * Automatic-Module-Name), and which module owns a class is a guess.
     */
    @Test
    void noPackageSplitBetweenModules() {
        Map<String, Set<String>> owners = new TreeMap<>();
        MODULES.forEach((module, classes) -> classes.keySet()
                .forEach(c -> owners.computeIfAbsent(packageOf(c), k -> new TreeSet<>()).add(module)));
        Map<String, Set<String>> split = new TreeMap<>();
        owners.forEach((pkg, modules) -> {
            if (modules.size() > 1) {
                split.put(pkg, modules);
            }
        });
        assertThat(split).isEmpty();
    }

    /** {@code module}'s classes' references into any of {@code forbidden} (a package and those under it). */
    private static List<String> references(String module, List<String> forbidden) {
        List<String> found = new ArrayList<>();
        MODULES.getOrDefault(module, Map.of()).forEach((name, refs) -> {
            for (String ref : refs) {
                String pkg = packageOf(ref);
                for (String f : forbidden) {
                    if (pkg.equals(f) || pkg.startsWith(f + ".")) {
                        found.add(module + ": " + name + " -> " + ref);
                    }
                }
            }
        });
        return found;
    }

    private static boolean isExample(String pkg) {
        return pkg.equals("example") || pkg.endsWith(".example") || pkg.contains(".example.");
    }

    /** Whether a package-info's code (not its comments) carries {@code @NullMarked}. */
    static boolean isNullMarked(String source) {
        String code = source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
        return NULL_MARKED.matcher(code).find();
    }

    private static boolean hasEntry(Path root, String entry) throws IOException {
        if (Files.isDirectory(root)) {
            return Files.exists(root.resolve(entry));
        }
        try (JarFile jar = new JarFile(root.toFile())) {
            return jar.getEntry(entry) != null;
        }
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }

    private static String topLevel(String simpleName) {
        int dollar = simpleName.indexOf('$');
        return dollar < 0 ? simpleName : simpleName.substring(0, dollar);
    }
    /** Tarjan's strongly connected components. */
    private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        List<String> stack = new ArrayList<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        for (String v : graph.keySet()) {
            if (!index.containsKey(v)) {
                connect(v, graph, index, low, stack, onStack, out);
            }
        }
        return out;
    }

    private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, List<String> stack, Set<String> onStack, List<Set<String>> out) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.add(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, out);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.remove(stack.size() - 1);
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            out.add(component);
        }
    }

    private static Map<String, Set<String>> read(Path root) throws IOException {
        Map<String, Set<String>> classes = new TreeMap<>();
        if (Files.isDirectory(root)) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files.filter(ArchitectureTest::isClass)::iterator) {
                    try (InputStream in = Files.newInputStream(f)) {
                        String name = root.relativize(f).toString().replace(java.io.File.separatorChar, '/');
                        classes.put(className(name), classReferences(in));
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(root.toFile())) {
                jar.stream().filter(e -> isClass(Path.of(e.getName()))).forEach(e -> {
                    try (InputStream in = jar.getInputStream(e)) {
                        classes.put(className(e.getName()), classReferences(in));
                    } catch (IOException x) {
                        throw new UncheckedIOException(x);
                    }
                });
            }
        }
        return classes;
    }

    private static boolean isClass(Path p) {
        String n = p.getFileName().toString();
        return n.endsWith(".class") && !n.equals("module-info.class") && !n.equals("package-info.class")
                && !p.toString().replace('\\', '/').contains("META-INF/");
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    /** The dev.pulsebus classes a class file refers to (binary names), from its constant pool minus string literals. */
    static Set<String> classReferences(InputStream stream) throws IOException {
        DataInputStream in = new DataInputStream(stream);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        Set<Integer> literals = new HashSet<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 8 -> literals.add(in.readUnsignedShort()); // CONSTANT_String
                case 7, 16, 19, 20 -> in.readUnsignedShort(); // Class, MethodType, Module, Package
                case 15 -> in.skipBytes(3); // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++; // a long or double takes two slots
                }
                default -> throw new IOException("constant pool tag " + tag);
            }
        }
        Set<String> classes = new TreeSet<>();
        for (int i = 1; i < count; i++) {
            if (utf8[i] != null && !literals.contains(i)) {
                Matcher m = TYPE.matcher(utf8[i]);
                while (m.find()) {
                    classes.add(m.group(1).replace('/', '.'));
                }
            }
        }
        return classes;
    }
}
