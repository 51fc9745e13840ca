package dev.pulsebus.module;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/** Finding modules and putting them in load order. */
public final class Modules {

    private Modules() {
    }

    /** The modules listed for {@link ServiceLoader} on {@code classpath}, in the order found. */
    public static List<BotModule> onClasspath(ClassLoader classpath) {
        List<BotModule> found = new ArrayList<>();
        ServiceLoader.load(BotModule.class, classpath).forEach(found::add);
        return found;
    }

    /** The jars in {@code folder}, sorted by name, for {@link ModuleHost#load(Path)}; none when it is absent. */
    public static List<Path> jars(Path folder) {
        if (folder == null || !Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw new ModuleException("cannot list module folder " + folder + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@code modules} in an order where every module comes after its dependencies (otherwise in the given
     * order).
     *
     * @throws ModuleException naming a duplicate, a missing dependency, or the modules of a cycle
     */
    public static List<BotModule> inLoadOrder(List<BotModule> modules) {
        Map<String, BotModule> byName = new LinkedHashMap<>();
        for (BotModule m : modules) {
            if (byName.putIfAbsent(m.name(), m) != null) {
                throw new ModuleException("two modules are named '" + m.name() + "': "
                        + byName.get(m.name()).getClass().getName() + " and " + m.getClass().getName());
            }
        }
        for (BotModule m : modules) {
            for (String dep : m.dependencies()) {
                if (!byName.containsKey(dep)) {
                    throw new ModuleException("module '" + m.name() + "' needs '" + dep + "', which is not present");
                }
            }
        }
        List<BotModule> order = new ArrayList<>();
        Map<String, Boolean> state = new LinkedHashMap<>(); // false: visiting, true: done
        for (BotModule m : modules) {
            visit(m, byName, state, order, new ArrayList<>());
        }
        return order;
    }

    private static void visit(BotModule m, Map<String, BotModule> byName, Map<String, Boolean> state,
                              List<BotModule> order, List<String> path) {
        Boolean s = state.get(m.name());
        if (Boolean.TRUE.equals(s)) {
            return;
        }
        path.add(m.name());
        if (Boolean.FALSE.equals(s)) {
            List<String> cycle = path.subList(path.indexOf(m.name()), path.size());
            throw new ModuleException("modules depend on each other in a cycle: " + String.join(" -> ", cycle));
        }
        state.put(m.name(), false);
        for (String dep : m.dependencies()) {
            visit(Objects.requireNonNull(byName.get(dep), dep), byName, state, order, path); // checked present above
        }
        state.put(m.name(), true);
        order.add(m);
        path.remove(path.size() - 1);
    }
}
