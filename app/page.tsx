"use client";

import { ProjectList } from "@/components/projects/project-list";
import { AppShell } from "@/components/auth/app-shell";

export default function ProjectsPage() {
  return <AppShell>{() => <ProjectList />}</AppShell>;
}
