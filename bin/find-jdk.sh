# Sourced by ./mvnw, bin/offheap and .ci/run: points JAVA_HOME at a JDK 25 or newer.
# Order: JAVA_HOME if it is one, then /usr/lib/jvm/*25* and newer; otherwise exit 1 with what to install.
offheap_java_feature() {
  # prints the feature version (17, 25, ...) of the JDK at $1, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  # A java that fails (a damaged install, one built for another CPU) prints no version and is passed over;
  # the pipeline's status must not count: bin/offheap and .ci/run source this under pipefail and errexit,
  # where the failure would end them with java's exit code and no message.
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1 || :
}
offheap_find_jdk() {
  local v candidate
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(offheap_java_feature "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      # a relative JAVA_HOME names a JDK from this directory only: bin/offheap builds with ./mvnw from the
      # repository root, which sources this script again and would look for it there
      case $JAVA_HOME in /*) ;; *) JAVA_HOME="$(cd "./$JAVA_HOME" && pwd)" ;; esac
      export JAVA_HOME
      return 0
    fi
  fi
  local restore_noglob=""
  case $- in *f*) restore_noglob=1; set +f ;; esac
  for candidate in /usr/lib/jvm/*25* /usr/lib/jvm/*2[6-9]* /usr/lib/jvm/*3[0-9]*; do
    [ -d "$candidate" ] || continue
    v=$(offheap_java_feature "$candidate")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      export JAVA_HOME="$candidate"
      [ -z "$restore_noglob" ] || set -f
      return 0
    fi
  done
  [ -z "$restore_noglob" ] || set -f
  echo "offheap: needs a JDK 25 or newer (with javac)." >&2
  echo "  JAVA_HOME=${JAVA_HOME:-<unset>} is not one, and none was found under /usr/lib/jvm." >&2
  echo "  Install one (for example the Debian/Ubuntu package temurin-25-jdk or openjdk-25-jdk)" >&2
  echo "  and set JAVA_HOME to it." >&2
  exit 1
}
offheap_find_jdk
